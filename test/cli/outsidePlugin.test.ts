/**
 * A plugin in a folder of its own, outside the repository, with the runtime installed as its
 * dependency (`node_modules/osr-runtime`, linked as `npm install ../osr-runtime` links it): the
 * example plugin and its test, copied there unchanged, run against the runtime's sources and
 * against its compiled tree (`--conditions=osr-dist`), and `osr start` from dist serves it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { freePort } from '../harness/freePort.ts';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const base = mkdtempSync(join(tmpdir(), 'osr-outside-'));
t.teardown(() => rmSync(base, { recursive: true, force: true }));

// The runtime as a fresh clone has it, built; node_modules shared.
const runtime = join(base, 'osr-runtime');
mkdirSync(runtime);
for (const entry of ['bin', 'kernel', 'capabilities', 'metadata', 'plugins', 'runtime', 'cli', 'examples', 'package.json']) {
  cpSync(join(REPO, entry), join(runtime, entry), { recursive: true, filter: (source) => !source.endsWith('.test.ts') });
}
symlinkSync(join(REPO, 'node_modules'), join(runtime, 'node_modules'));
const build = spawnSync(process.execPath, [join(runtime, 'bin/buildCompiled.js')], { encoding: 'utf8' });

// The plugin's own folder: its files, its package.json, its dependencies.
const plugin = join(base, 'hello-plugin');
mkdirSync(join(plugin, 'node_modules'), { recursive: true });
for (const file of ['index.ts', 'hello.test.ts']) copyFileSync(join(REPO, 'examples/hello-plugin', file), join(plugin, file));
writeFileSync(join(plugin, 'package.json'), JSON.stringify({
  name: 'osr-plugin-hello', version: '1.0.0', type: 'module', main: 'index.ts',
  peerDependencies: { 'osr-runtime': '^16.0.0' }, devDependencies: { 'osr-runtime': 'file:../osr-runtime', tap: '^21.0.0', tsx: '^4.0.0' },
}));
symlinkSync(runtime, join(plugin, 'node_modules', 'osr-runtime'));
for (const name of ['tap', 'tsx']) symlinkSync(join(REPO, 'node_modules', name), join(plugin, 'node_modules', name));
// A second test: a route that throws the kernel's coded error answers 404 only if the plugin's
// kernel is the one the runtime runs (one kernel, not two copies).
writeFileSync(join(plugin, 'thrower.ts'), `
import { codedError, definePlugin } from 'osr-runtime/kernel';
export default definePlugin({
  name: 'thrower', version: '1.0.0', kernel: '^16.0.0', requires: ['http.routes'],
  register(ctx) {
    ctx.resolve('http.routes').add({ method: 'GET', path: '/thrower', public: true, summary: 'throws', handler: () => { throw codedError('NOT_FOUND', { what: 'Thing' }); } });
  },
});
`);
writeFileSync(join(plugin, 'kernel.test.ts'), `
import t from 'tap';
import { startTestRuntime } from 'osr-runtime/testing';
t.test('a coded error thrown by the plugin comes from the running kernel', async (t) => {
  const rt = await startTestRuntime({ config: { plugins: { thrower: { path: './thrower.ts', grants: ['http.routes'] } } } });
  t.teardown(() => rt.close());
  const res = await rt.inject('/api/v1/thrower');
  t.equal(res.statusCode, 404, 'its envelope, not a 500');
  t.equal(res.json().error.code, 'NOT_FOUND');
  t.equal(import.meta.resolve('osr-runtime/kernel').includes('/dist/') ? 'dist' : 'sources', process.env.EXPECT_FROM);
});
`);

const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: process.env.HOME, ...extra });

function node(args: string[], extra: NodeJS.ProcessEnv = {}) {
  return spawnSync(process.execPath, args, { cwd: plugin, env: env(extra), encoding: 'utf8', timeout: 120_000 });
}

t.test('the runtime copy is built', async (t) => {
  t.equal(build.status, 0, build.stderr);
});

t.test('osr-runtime/kernel and osr-runtime/testing resolve to the sources, or to dist/ with the osr-dist condition', async (t) => {
  const resolveBoth = "console.log(import.meta.resolve('osr-runtime/kernel') + ' ' + import.meta.resolve('osr-runtime/testing'))";
  const sources = node(['--input-type=module', '-e', resolveBoth]);
  t.equal(sources.stdout.trim(), `file://${runtime}/kernel/index.ts file://${runtime}/runtime/startTestRuntime.ts`);
  const dist = node(['--conditions=osr-dist', '--input-type=module', '-e', resolveBoth]);
  t.equal(dist.stdout.trim(), `file://${runtime}/dist/kernel/index.js file://${runtime}/dist/runtime/startTestRuntime.js`);
});

for (const [where, args] of [['sources', ['--import', 'tsx']], ['dist', ['--import', 'tsx', '--conditions=osr-dist']]] as const) {
  t.test(`the plugin's own tests pass from its folder, against the runtime's ${where}`, async (t) => {
    for (const file of ['hello.test.ts', 'kernel.test.ts']) {
      const run = node([...args, file], { EXPECT_FROM: where });
      t.equal(run.status, 0, `${file} passes`);
      if (run.status !== 0) t.comment(run.stdout, run.stderr);
      t.notMatch(run.stdout, /^\s*not ok/m);
      t.match(run.stdout, /^ok 1 - /m);
    }
  });
}

t.test('osr start from the installed bin runs dist/ and serves the plugin of the folder', async (t) => {
  const port = await freePort();
  writeFileSync(join(plugin, 'runtime.config.json'), JSON.stringify({
    apps: [], dataDir: join(base, 'data'), server: { port }, log: { level: 'warn' }, plugins: { hello: { path: '.', grants: ['http.routes'], greeting: 'from outside' } },
  }));
  const child = spawn(process.execPath, [join(plugin, 'node_modules/osr-runtime/bin/osr.js'), 'start', '--workers', '1'], { cwd: plugin, env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
  t.teardown(() => void child.kill('SIGKILL'));
  let output = '';
  child.stdout.on('data', (chunk) => { output += chunk; });
  child.stderr.on('data', (chunk) => { output += chunk; });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', () => { if (/serving http/.test(output)) resolve(); });
    void exited.then(() => reject(new Error(`exited:\n${output}`)));
  });
  t.match(output, / from dist\//);
  const hello = await fetch(`http://127.0.0.1:${port}/api/v1/hello`);
  t.same(await hello.json(), { greeting: 'from outside', created: {} });
  child.kill('SIGTERM');
  await exited;
});
