/**
 * `osr start` from the compiled tree (bin/compiledTree.js, bin/buildCompiled.js): in a copy of the
 * repository, so building and touching sources never disturbs the tests running beside this one.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { freePort } from '../harness/freePort.ts';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const base = mkdtempSync(join(tmpdir(), 'osr-compiled-'));
t.teardown(() => rmSync(base, { recursive: true, force: true }));

// The repository as a fresh clone has it, minus tests; node_modules shared.
const root = join(base, 'repo');
mkdirSync(root);
for (const entry of ['bin', 'kernel', 'capabilities', 'metadata', 'plugins', 'runtime', 'cli', 'examples', 'package.json', 'runtime.config.ts']) {
  cpSync(join(REPO, entry), join(root, entry), { recursive: true, filter: (source) => !source.endsWith('.test.ts') });
}
symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'));

const build = spawnSync(process.execPath, [join(root, 'bin/buildCompiled.js')], { encoding: 'utf8' });

interface Started {
  child: ChildProcess;
  url: string;
  output(): string;
}

/** `node bin/osr.js start` with a JSON config; resolves once it serves, rejects if it exits first. */
async function start(config: object, env: NodeJS.ProcessEnv = {}): Promise<Started> {
  const port = await freePort();
  const dir = mkdtempSync(join(base, 'ws-'));
  const configFile = join(dir, 'runtime.config.json');
  writeFileSync(configFile, JSON.stringify({ dataDir: join(dir, 'data'), server: { port, host: '127.0.0.1', logRequests: false }, log: { level: 'warn' }, api: { requireAuth: false }, ...config }));
  const child = spawn(process.execPath, [join(root, 'bin/osr.js'), 'start', '--config', configFile, '--workers', '1'], { cwd: dir, env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => { output += chunk; });
  child.stderr!.on('data', (chunk) => { output += chunk; });
  t.teardown(() => { child.kill('SIGKILL'); });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "serving" line within 60 s:\n${output}`)), 60_000);
    child.on('exit', () => {
      clearTimeout(timer);
      reject(Object.assign(new Error(`exited before serving:\n${output}`), { output }));
    });
    child.stdout!.on('data', () => {
      const served = /serving (http:\/\/\S+\/api\/v1)/.exec(output);
      if (served) {
        clearTimeout(timer);
        resolve({ child, url: served[1]!, output: () => output });
      }
    });
  });
}

async function stop(started: Started): Promise<void> {
  const exited = new Promise((resolve) => started.child.once('exit', resolve));
  started.child.kill('SIGTERM');
  await exited;
}

const hello = { hello: { path: join(root, 'examples/hello-plugin'), grants: ['http.routes'], greeting: 'compiled hello' } };

t.test('the build writes a tree that mirrors the sources', async (t) => {
  t.equal(build.status, 0, build.stderr);
  t.match(build.stdout, /osr build: \d+ modules compiled and \d+ files copied into dist\/ in \d+ ms/);
  t.ok(existsSync(join(root, 'dist/cli/main.js')), 'cli/main.ts compiled');
  t.ok(existsSync(join(root, 'dist/plugins/data/system-app/app.json')), 'a system app copied beside its plugin');
  t.ok(existsSync(join(root, 'dist/examples/hello-plugin/index.js')), 'the example plugin compiled');
  t.notOk(existsSync(join(root, 'dist/examples/hello-plugin/hello.test.js')), 'tests are not compiled');
  t.notOk(existsSync(join(root, 'dist/metadata/apps')), 'apps are data read from the sources');
  t.match(readFileSync(join(root, 'dist/kernel/index.js'), 'utf8'), /from "\.\/definePlugin\.js"/, 'imports point at compiled modules');
  t.equal(JSON.parse(readFileSync(join(root, 'dist/package.json'), 'utf8')).version, JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version, 'the version the runtime reports');
  const again = spawnSync(process.execPath, [join(root, 'bin/buildCompiled.js'), '--if-stale'], { encoding: 'utf8' });
  t.match(again.stdout, 'dist/ matches the sources', '--if-stale does nothing on a current tree');
});

t.test('start runs the compiled tree, with the example plugin from its twin', async (t) => {
  const rt = await start({ apps: [join(root, 'metadata/apps/crm')], plugins: { crm: { enabled: true }, ...hello } });
  t.teardown(() => stop(rt));
  t.match(rt.output(), / from dist\//, 'the serving line says where the code came from');
  t.notMatch(rt.output(), 'TypeScript sources');
  const greeting = await fetch(`${rt.url}/hello`).then((r) => r.json()) as { greeting: string };
  t.equal(greeting.greeting, 'compiled hello', 'the plugin runs');
  const explorer = await fetch(`${rt.url}/docs/explorer.js`);
  t.equal(explorer.status, 200, 'an asset read beside its module is served');
  const discovery = await fetch(`${rt.url}`).then((r) => r.json()) as { version?: string };
  t.equal(discovery.version, JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version);
});

t.test('a TypeScript plugin outside the tree shares the running kernel', async (t) => {
  const dir = join(base, 'outside-plugin');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'outside', private: true, type: 'module' }));
  // It throws the kernel's own multi-problem error: the boot report lists both lines only if the
  // class it threw is the class the running kernel checks (one kernel, not a second copy).
  writeFileSync(join(dir, 'index.ts'), `
import { codedError, definePlugin, KernelBootError } from ${JSON.stringify(join(root, 'kernel/index.ts'))};
const where: string = 'outside';
export default definePlugin({
  name: 'outside', version: '1.0.0', kernel: '^16.0.0', requires: [],
  register() {
    throw new KernelBootError([
      codedError('CONFIG_INVALID', { path: 'plugins.outside.first', reason: where + ' one' }),
      codedError('CONFIG_INVALID', { path: 'plugins.outside.second', reason: where + ' two' }),
    ]);
  },
});
`);
  const failure = await start({ apps: [], plugins: { outside: { path: dir } } }).then(() => null, (error: { output?: string }) => error.output ?? String(error));
  t.ok(failure, 'the boot fails');
  t.match(failure, /^The runtime could not boot \(2 problem\(s\)\):\n {2}- \[CONFIG_INVALID\]/m, 'both problems are lines of the report');
  t.notMatch(failure, 'KERNEL_PHASE_FAILED', 'not one failure wrapping an error the kernel did not recognise');
  t.match(failure, 'plugins.outside.first: outside one');
  t.match(failure, 'plugins.outside.second: outside two');
  t.notMatch(failure, 'TypeScript sources', 'the runtime itself still ran from dist/');
});

t.test('a TypeScript plugin in a folder without package.json loads as an ES module, from dist and from the sources', async (t) => {
  const dir = join(base, 'bare-plugin');
  mkdirSync(dir, { recursive: true });
  // No package.json anywhere above it: tsx alone takes it for CommonJS. The route throws the
  // kernel's coded error, which becomes the envelope only if it is the running kernel's class.
  writeFileSync(join(dir, 'greeting.ts'), `export const greeting = (name: string): string => 'bare ' + name;\n`);
  writeFileSync(join(dir, 'index.ts'), `
import { codedError, definePlugin } from ${JSON.stringify(join(root, 'kernel/index.ts'))};
import { greeting } from './greeting.ts';
export default definePlugin({
  name: 'bare', version: '1.0.0', kernel: '^16.0.0', requires: ['http.routes'],
  register(ctx) {
    ctx.resolve('http.routes').add({ method: 'GET', path: '/bare', public: true, summary: 'bare', handler: () => ({ greeting: greeting('plugin') }) });
    ctx.resolve('http.routes').add({ method: 'GET', path: '/bare/missing', public: true, summary: 'bare', handler: () => { throw codedError('NOT_FOUND', { what: 'Bare thing' }); } });
  },
});
`);
  for (const env of [{}, { OSR_FROM_SOURCE: '1' }]) {
    const where = Object.keys(env).length > 0 ? 'sources' : 'dist';
    const rt = await start({ apps: [], plugins: { bare: { path: dir, grants: ['http.routes'] } } }, env);
    t.match(rt.output(), where === 'dist' ? / from dist\// : / from the TypeScript sources/, `${where}: served`);
    t.same(await fetch(`${rt.url}/bare`).then((r) => r.json()), { greeting: 'bare plugin' }, `${where}: the plugin and its sibling module run`);
    const missing = await fetch(`${rt.url}/bare/missing`);
    t.equal(missing.status, 404, `${where}: the kernel's coded error is the running kernel's`);
    await stop(rt);
  }
});

t.test('a changed source sends the start back to the sources, with a notice', async (t) => {
  const file = join(root, 'plugins/http/routeRegistry.ts');
  const later = new Date(Date.now() + 5_000);
  utimesSync(file, later, later);
  const rt = await start({ apps: [], plugins: hello });
  t.teardown(() => stop(rt));
  t.match(rt.output(), 'osr: running the TypeScript sources (plugins/http/routeRegistry.ts changed); npm run build compiles them for a faster start');
  t.match(rt.output(), / from the TypeScript sources/);
  const greeting = await fetch(`${rt.url}/hello`).then((r) => r.json()) as { greeting: string };
  t.equal(greeting.greeting, 'compiled hello', 'still serves');
  const rebuilt = spawnSync(process.execPath, [join(root, 'bin/buildCompiled.js'), '--if-stale'], { encoding: 'utf8' });
  t.match(rebuilt.stdout, /modules compiled/, '--if-stale rebuilds a stale tree');
});

t.test('OSR_FROM_SOURCE=1 runs the sources without a notice', async (t) => {
  const rt = await start({ apps: [] }, { OSR_FROM_SOURCE: '1' });
  t.teardown(() => stop(rt));
  t.match(rt.output(), / from the TypeScript sources/);
  t.notMatch(rt.output(), 'npm run build');
});
