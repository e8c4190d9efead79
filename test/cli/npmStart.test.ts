/**
 * `npm start` as a process manager or a terminal runs it: SIGTERM to npm reaches the server it
 * started, which drains and exits, and npm exits after it; no server is left behind.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { freePort } from '../harness/freePort.ts';

const ROOT = new URL('../..', import.meta.url).pathname;

/** Node processes started with this data directory in their environment (the server, wherever it hangs). */
function serversOf(dataDir: string): number[] {
  return readdirSync('/proc').filter((d) => /^\d+$/.test(d)).flatMap((pid) => {
    try {
      const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      return environ.includes(`OS_DATA_DIR=${dataDir}`) && /(^|\/)node$/.test(command[0]!) ? [Number(pid)] : [];
    } catch {
      return [];
    }
  });
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

t.test('SIGTERM to npm start drains and stops the server, and leaves no orphan', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'osr-npm-start-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const port = await freePort();
  // --ignore-scripts skips prestart (the build), which other tests run; the start script itself runs.
  const npm = spawn('npm', ['run', 'start', '--ignore-scripts'], {
    cwd: ROOT, env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port), OS_DATA_DIR: dataDir, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  npm.stdout.on('data', (chunk) => { output += chunk; });
  npm.stderr.on('data', (chunk) => { output += chunk; });
  const exited = new Promise<number | null>((resolve) => npm.on('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    npm.stdout.on('data', () => { if (/serving http/.test(output)) resolve(); });
    void exited.then(() => reject(new Error(`npm start exited:\n${output}`)));
  });
  const servers = serversOf(dataDir);
  // One process per core by default (osr start --workers): the primary and its workers.
  t.ok(servers.length >= 1, `the server runs (${servers.length} process(es): ${servers.join(', ')})`);
  t.ok(servers.every(alive), 'each of them is alive');
  t.teardown(() => { for (const pid of servers) if (alive(pid)) process.kill(pid, 'SIGKILL'); });
  const health = await fetch(`http://127.0.0.1:${port}/api/v1/health`);
  t.equal(health.status, 200);

  const sent = Date.now();
  npm.kill('SIGTERM');
  t.equal(await exited, 0, 'npm exits with the server\'s code 0');
  t.ok(Date.now() - sent < 10_000, `within ${Date.now() - sent} ms`);
  t.match(output, '"signal":"SIGTERM","msg":"shutting down"', 'the server received SIGTERM and drained');
  await new Promise((resolve) => setTimeout(resolve, 500));
  t.notOk(servers.some(alive), 'every server process is gone');
  t.same(serversOf(dataDir), [], 'no server is left running');
});
