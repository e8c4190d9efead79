/**
 * Every way a boot is refused, through the real `osr start`: the process prints the cause first and
 * exits with 1 as soon as it has printed its report, whatever the failing part left open (a pool, a timer).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { freePort } from '../harness/freePort.ts';

const BIN = new URL('../../bin/osr.js', import.meta.url).pathname;
const root = mkdtempSync(join(tmpdir(), 'osr-refused-'));
t.teardown(() => rmSync(root, { recursive: true, force: true }));

/** A directory with runtime.config.json and the given files (path -> content). */
function workspace(config: object, files: Record<string, string> = {}): string {
  const cwd = mkdtempSync(join(root, 'ws-'));
  writeFileSync(join(cwd, 'runtime.config.json'), JSON.stringify({ apps: [], ...config }));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(cwd, path, '..'), { recursive: true });
    writeFileSync(join(cwd, path), content);
  }
  return cwd;
}

const APP = JSON.stringify({ name: 'shop', label: 'Shop', version: '1.0.0', protocol: '^16.0.0' });
const item = (fields: object) => JSON.stringify({ name: 'item', label: 'Item', fields });

async function start(cwd: string, env: NodeJS.ProcessEnv = {}, port?: number) {
  const child = spawn(process.execPath, [BIN, 'start', '--port', String(port ?? await freePort())], {
    cwd, env: { PATH: process.env.PATH, OS_DATA_DIR: join(cwd, 'data'), LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let reported = 0;
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
    if (!reported && stderr.includes('could not boot')) reported = Date.now();
  });
  child.stdout.resume();
  // A process that stays alive after its report would hang the test: killed after 60 s, which
  // fails the time assertion. The time is counted from the report, so a slow machine does not matter.
  const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  clearTimeout(killer);
  return { code, ms: reported ? Date.now() - reported : Infinity, stderr: stderr.replace(/^osr: running the TypeScript sources.*\n/m, '') };
}

interface Row {
  name: string;
  cwd: () => string;
  env?: NodeJS.ProcessEnv;
  /** A port some other process listens on. */
  busyPort?: () => Promise<number>;
  /** The code of the first problem line. */
  code: string;
  includes: Array<string | RegExp>;
}

const rows: Row[] = [
  { name: 'an unknown config key', cwd: () => workspace({ server: { prot: 1 } }), code: 'CONFIG_INVALID', includes: ["server.prot: unknown key(s) 'prot'"] },
  { name: 'production without a secret', cwd: () => workspace({}), env: { NODE_ENV: 'production' }, code: 'SECRET_REQUIRED', includes: ['OS_AUTH_SECRET is required'] },
  { name: 'a plugin that cannot be loaded', cwd: () => workspace({ plugins: { ghost: { path: './nowhere' } } }), code: 'KERNEL_PLUGIN_LOAD_FAILED', includes: ["Plugin 'ghost' could not be loaded"] },
  {
    name: 'a plugin without its grant',
    cwd: () => workspace({ plugins: { hello: { path: new URL('../../examples/hello-plugin', import.meta.url).pathname } } }),
    code: 'KERNEL_TOKEN_NOT_GRANTED', includes: ['add \'http.routes\' to plugins.hello.grants'],
  },
  {
    name: 'metadata with an unknown field type',
    cwd: () => workspace({ apps: ['app'] }, { 'app/app.json': APP, 'app/objects/item.json': item({ title: { type: 'txet' } }) }),
    code: 'METADATA_INVALID', includes: ['item.json'],
  },
  {
    name: 'an app on another protocol',
    cwd: () => workspace({ apps: ['app'] }, { 'app/app.json': APP.replace('^16.0.0', '^99.0.0'), 'app/objects/item.json': item({ title: { type: 'text' } }) }),
    code: 'KERNEL_PROTOCOL_INCOMPATIBLE', includes: ["'^99.0.0'"],
  },
  {
    name: 'a schema change that would lose data',
    cwd: () => {
      const cwd = workspace({ apps: ['app'] }, { 'app/app.json': APP, 'app/objects/item.json': item({ title: { type: 'text' } }) });
      // The table as an earlier start left it, with a column the metadata no longer declares.
      mkdirSync(join(cwd, 'data'));
      const db = new Database(join(cwd, 'data', 'default.db'));
      db.exec('create table item (id varchar(36) primary key, title text, price numeric)');
      db.close();
      return cwd;
    },
    code: 'SCHEMA_CHANGE_REFUSED', includes: ['drop column item.price', "plugins.data.schemaSync: 'destructive'"],
  },
  {
    name: 'an unreachable database',
    cwd: () => workspace({}),
    env: { DATABASE_URL: 'postgres://app@127.0.0.1:9/app' },
    code: 'KERNEL_PHASE_FAILED', includes: ["Plugin 'data' failed in start"],
  },
  {
    name: 'a plugin that never finishes its start, and leaves a timer',
    cwd: () => workspace({ plugins: { stuck: { path: './stuck.mjs', timeoutMs: 300 } } }, {
      'stuck.mjs': `export default { name: 'stuck', version: '1.0.0', kernel: '^16.0.0',
  register() {},
  start() { setInterval(() => {}, 1000); return new Promise(() => {}); } };\n`,
    }),
    code: 'KERNEL_PHASE_TIMEOUT', includes: ["Plugin 'stuck' did not finish start within 300 ms"],
  },
  {
    name: 'a port another process listens on',
    cwd: () => workspace({}),
    busyPort: async () => {
      const server = createServer();
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      t.teardown(() => { server.close(); });
      return (server.address() as AddressInfo).port;
    },
    // A worker of osr start --workers N (the default on a machine of several cores) binds through the primary: `bind`.
    code: 'KERNEL_PHASE_FAILED', includes: [/Plugin 'http' failed in ready: (listen|bind) EADDRINUSE/],
  },
];

for (const row of rows) {
  t.test(`${row.name}: exit 1 as soon as the report is printed, the cause first`, async (t) => {
    const { code, ms, stderr } = await start(row.cwd(), row.env, await row.busyPort?.());
    t.equal(code, 1, 'exit code 1');
    t.ok(ms < 2_000, `exited ${ms} ms after printing its report`);
    t.match(stderr, /^The runtime could not boot \(\d+ problem\(s\)\):\n/, 'the headline');
    t.equal(/\n {2}- \[(\w+)\]/.exec(stderr)?.[1], row.code, 'the first problem is the cause');
    for (const text of row.includes) t.match(stderr, text);
  });
}

t.test('the dependents of a failed plugin are one line naming it, after the cause', async (t) => {
  const cwd = rows.find((r) => r.code === 'SCHEMA_CHANGE_REFUSED')!.cwd();
  const { stderr } = await start(cwd);
  const lines = stderr.split('\n').filter((l) => l.startsWith('  - ['));
  t.same(lines.map((l) => /\[(\w+)\]/.exec(l)?.[1]), ['SCHEMA_CHANGE_REFUSED', 'KERNEL_DEPENDENCY_FAILED'], 'one root, one folded line');
  // Every plugin that needs data.engine, named once, and counted.
  const folded = /not started because 'data' failed: ([\w, -]+) \((\d+) plugins/.exec(lines[1] ?? '');
  const named = folded?.[1]!.split(', ') ?? [];
  t.ok(['meta-api', 'rest', 'io', 'search', 'sharing'].every((p) => named.includes(p)), `the dependents are named: ${named.join(', ')}`);
  t.equal(Number(folded?.[2]), named.length, 'and counted');
  t.match(stderr, 'The runtime could not boot (1 problem(s))', 'the count is of causes');
});
