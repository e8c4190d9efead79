/** The osr command as operators run it: a child process in a directory holding runtime.config.json. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { freePort } from '../harness/freePort.ts';

const BIN = new URL('../../bin/osr.js', import.meta.url).pathname;
const HELLO = new URL('../../examples/hello-plugin', import.meta.url).pathname;
const root = mkdtempSync(join(tmpdir(), 'osr-cli-'));
t.teardown(() => rmSync(root, { recursive: true, force: true }));

/** A working directory with the given config and its own data directory. */
function workspace(config: object): { cwd: string; dataDir: string } {
  const cwd = mkdtempSync(join(root, 'ws-'));
  writeFileSync(join(cwd, 'runtime.config.json'), JSON.stringify({ apps: [], ...config }));
  return { cwd, dataDir: join(cwd, 'data') };
}

// Only what the command needs: no OS_AUTH_SECRET, nothing inherited from the test runner.
const envFor = (dataDir: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, OS_DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...extra });

function launch(args: string[], cwd: string, env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, [BIN, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
}

function run(args: string[], ws: { cwd: string; dataDir: string }, extra: NodeJS.ProcessEnv = {}) {
  const child = launch(args, ws.cwd, envFor(ws.dataDir, extra));
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => { stdout += chunk; });
  child.stderr!.on('data', (chunk) => { stderr += chunk; });
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}


function fetchText(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (res) => {
      let body = '';
      res.on('data', (chunk) => { body += chunk; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}

type Report = { ok: boolean; checks: Array<{ name: string; ok: boolean; detail: string; problems?: Array<{ code: string; message: string }> }> };

t.test('doctor --json: every check ok, exit 0, and nothing written', async (t) => {
  const ws = workspace({});
  const { code, stdout } = await run(['doctor', '--json'], ws);
  t.equal(code, 0);
  const report = JSON.parse(stdout) as Report;
  t.equal(report.ok, true);
  t.same(report.checks.map((c) => [c.name, c.ok]), [['config', true], ['secret', true], ['database', true], ['jobs', true], ['settings', true], ['apps', true], ['capabilities', true], ['protocol', true], ['metadata', true], ['schema', true], ['declared indexes', true], ['index advice', true]]);
  t.match(report.checks.at(-1)?.detail, /GET \/api\/v1\/metrics\/index-advice as an admin \(reads of 50 ms or more/, 'doctor points to the index advice route');
  t.equal(report.checks[0]?.detail, `loaded ${join(ws.cwd, 'runtime.config.json')}`);
  t.equal(report.checks[2]?.detail, `SQLite file ${join(ws.dataDir, 'default.db')} will be created at first start`);
  t.same(readdirSync(ws.cwd), ['runtime.config.json'], 'no data directory, database or secret created');
});

t.test('doctor with an unknown config key: exit 1 and the path in the output', async (t) => {
  const ws = workspace({ server: { prot: 3000 } });
  const text = await run(['doctor'], ws);
  t.equal(text.code, 1);
  t.match(text.stdout, /^FAIL config +the configuration is not valid$/m);
  t.match(text.stdout, "[CONFIG_INVALID] Configuration is not valid at server.prot: unknown key(s) 'prot'");
  const json = await run(['doctor', '--json'], ws);
  t.equal(json.code, 1);
  t.same((JSON.parse(json.stdout) as Report).checks[0]?.problems?.map((p) => p.code), ['CONFIG_INVALID']);
});

t.test('doctor with DATABASE_URL to a closed PostgreSQL port: exit 1, password not shown', async (t) => {
  const ws = workspace({});
  const port = await freePort();
  const { code, stdout } = await run(['doctor', '--json'], ws, { DATABASE_URL: `postgres://app:hunter2@127.0.0.1:${port}/app` });
  t.equal(code, 1);
  const database = (JSON.parse(stdout) as Report).checks.find((c) => c.name === 'database');
  t.equal(database?.ok, false);
  t.match(database?.detail, `PostgreSQL at postgres://app:***@127.0.0.1:${port}/app is not reachable: `);
  t.equal(stdout.includes('hunter2'), false, 'the password is redacted');
});

t.test('plugins --json: http with its tokens; an ungranted third-party plugin shows its problem', async (t) => {
  const ws = workspace({ plugins: { hello: { path: HELLO } } });
  const { code, stdout } = await run(['plugins', '--json'], ws);
  t.equal(code, 0);
  const rows = JSON.parse(stdout) as Array<Record<string, unknown>>;
  const row = (name: string) => rows.find((r) => r.name === name);
  t.same(row('http'), {
    name: 'http', version: '16.0.0', source: 'builtin', state: 'enabled',
    requires: ['runtime.info', 'kernel.plugins'], optional: ['auth.session', 'access.grants', 'data.writeTokens', 'events.bus'], provides: ['http.routes', 'http.server'], problems: [],
  });
  t.hasStrict(row('hello'), { source: HELLO, state: 'problem', requires: ['http.routes'] });
  t.match((row('hello')?.problems as string[])[0], "[KERNEL_TOKEN_NOT_GRANTED] Plugin 'hello' requires 'http.routes'");
});

t.test('start with a bad config: exit 1 with the boot error on stderr', async (t) => {
  const { code, stderr } = await run(['start'], workspace({ api: { requireAuht: false } }));
  t.equal(code, 1);
  t.match(stderr, 'The runtime could not boot (1 problem(s)):\n  - [CONFIG_INVALID] Configuration is not valid at api.requireAuht');
});

/** Start the server; `waitFor` resolves with the first match of a pattern in its output. */
function start(ws: { cwd: string; dataDir: string }, port: number) {
  const child = launch(['start', '--port', String(port), '--workers', '1'], ws.cwd, envFor(ws.dataDir));
  let stdout = '';
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  child.stdout!.on('data', (chunk) => { stdout += chunk; });
  const waitFor = (pattern: RegExp) => new Promise<RegExpExecArray>((resolve, reject) => {
    const check = () => {
      const match = pattern.exec(stdout);
      if (match) resolve(match);
      return match;
    };
    if (check()) return;
    child.stdout!.on('data', check);
    void exited.then(() => reject(new Error(`osr start exited before printing ${pattern}:\n${stdout}`)));
  });
  return { child, exited, waitFor, output: () => stdout };
}

t.test('start: prints the URL, serves health, exits 0 on SIGTERM', async (t) => {
  const ws = workspace({});
  const port = await freePort();
  const osr = start(ws, port);
  t.teardown(() => void osr.child.kill('SIGKILL'));
  const url = (await osr.waitFor(/serving (http:\/\/\S+\/api\/v1) /))[1];
  t.equal(url, `http://127.0.0.1:${port}/api/v1`);
  t.match(osr.output(), `osr default: serving http://127.0.0.1:${port}/api/v1 (database sqlite)`);
  const health = await fetchText(`${url}/health`);
  t.equal(health.status, 200);
  t.hasStrict(JSON.parse(health.body), { status: 'ok', version: '16.0.0' });

  const sent = Date.now();
  osr.child.kill('SIGTERM');
  t.same(await osr.exited, { code: 0, signal: null }, 'exit code 0');
  t.ok(Date.now() - sent < 5000, `exited ${Date.now() - sent} ms after SIGTERM`);
  t.equal(statSync(join(ws.dataDir, '.auth-secret')).mode & 0o777, 0o600, 'a development secret was generated and kept');
});

t.test('start: SIGTERM while a request is in flight, the request still gets its 200', async (t) => {
  const ws = workspace({ plugins: { slow: { path: './slow.mjs', grants: ['http.routes'] } } });
  writeFileSync(join(ws.cwd, 'slow.mjs'), `export default {
  name: 'slow', version: '1.0.0', kernel: '^16.0.0', requires: ['http.routes'],
  register(ctx) {
    ctx.resolve('http.routes').add({ method: 'GET', path: '/slow', public: true, summary: 'Takes 300 ms',
      handler: () => {
        ctx.log.warn('slow request entered');
        return new Promise((resolve) => setTimeout(() => resolve({ done: true }), 300));
      } });
  },
};
`);
  const osr = start(ws, await freePort());
  t.teardown(() => void osr.child.kill('SIGKILL'));
  const url = (await osr.waitFor(/serving (http:\/\/\S+\/api\/v1) /))[1];
  const response = fetchText(`${url}/slow`);
  await osr.waitFor(/slow request entered/);
  osr.child.kill('SIGTERM');
  t.same(await response, { status: 200, body: '{"done":true}' });
  t.same(await osr.exited, { code: 0, signal: null });
});
