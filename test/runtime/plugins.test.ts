/** resolvePlugins and the boot checks on what config says of plugins: names, paths, grants, options. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import { KernelBootError } from '../../kernel/index.ts';
import type { RuntimeConfigInput } from '../../runtime/configSchema.ts';
import { loadConfig } from '../../runtime/loadConfig.ts';
import { resolvePlugins } from '../../runtime/resolvePlugins.ts';
import { startTestRuntime } from '../harness/startTestRuntime.ts';
import { HTTP_ONLY } from '../http/fixtures.ts';

const dir = mkdtempSync(join(tmpdir(), 'osr-plugins-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

// A third-party plugin as a plain module: it records what its scope holds.
writeFileSync(join(dir, 'probe.mjs'), `
export const seen = {};
export default {
  name: 'probe', version: '1.0.0', kernel: '^16.0.0',
  requires: ['http.routes'], optional: ['http.server'],
  register(ctx) {
    seen.options = ctx.options;
    seen.hasServer = ctx.has('http.server');
    seen.server = ctx.resolve('http.server');
    ctx.resolve('http.routes').add({ method: 'GET', path: '/probe', public: true, summary: 'Probe', handler: () => ({ probe: true }) });
  },
};
`);
writeFileSync(join(dir, 'throws.mjs'), "throw new Error('cannot reach the license server');\n");
writeFileSync(join(dir, 'nodefault.mjs'), 'export const x = 1;\n');
writeFileSync(join(dir, 'renamed.mjs'), "export default { name: 'other', version: '1.0.0', kernel: '^16.0.0', register() {} };\n");
const { seen } = (await import(pathToFileURL(join(dir, 'probe.mjs')).href)) as { seen: { options?: unknown; hasServer?: boolean; server?: unknown } };

type Plugins = NonNullable<RuntimeConfigInput['plugins']>;
// The http plugin is the only built-in these cases need.
const resolve = async (plugins: Plugins) => resolvePlugins(await loadConfig({ inline: { plugins }, cwd: dir, env: {} }), HTTP_ONLY);
const boot = (plugins: Plugins) => startTestRuntime({ cwd: dir, config: { plugins }, builtins: HTTP_ONLY });

/** Every failure of the boot error the promise must reject with, as [code, details]. */
async function failures(promise: Promise<unknown>): Promise<Array<{ code: string; details: Record<string, unknown>; message: string }>> {
  try {
    await promise;
  } catch (error) {
    if (!(error instanceof KernelBootError)) throw error;
    return error.failures.map((f) => ({ code: f.code, details: f.details, message: f.message }));
  }
  throw new Error('it succeeded, but a KernelBootError was expected');
}

t.test('entries: built-ins get every grant and options from top-level config; third-party exactly what config says', async (t) => {
  const entries = await resolve({ probe: { path: './probe.mjs', grants: ['http.routes'], timeoutMs: 500, greeting: 'Hi' } });
  const [http, probe] = entries;
  t.same(entries.map((e) => e.manifest.name), ['http', 'probe']);
  t.hasStrict(http, { enabled: true, grants: 'all', source: 'builtin', options: { port: 3000, host: '127.0.0.1', bodyLimit: 1_048_576 } });
  t.hasStrict(probe, { enabled: true, grants: ['http.routes'], source: join(dir, 'probe.mjs'), timeoutMs: 500 });
  t.same(probe?.options, { greeting: 'Hi' }, 'host keys (path, grants, timeoutMs) are not plugin options');
  t.same((await resolve({ probe: { path: './probe.mjs' } }))[1]?.grants, [], 'no grants unless config gives them');
  t.same((await resolve({ probe: { path: './probe.mjs', enabled: false } }))[1]?.enabled, false, 'enabled: false switches it off');
});

t.test('problems in plugin config are all reported, each naming plugins.<name>', async (t) => {
  const got = await failures(resolve({
    analytics: {},
    http: { path: './http.mjs' },
    gone: { path: './missing' },
    throws: { path: './throws.mjs' },
    nodefault: { path: './nodefault.mjs' },
    renamed: { path: './renamed.mjs' },
    pkg: { package: 'osr-plugin-not-installed' },
  }));
  t.same(got.map((f) => [f.code, f.details.path ?? f.details.plugin]), [
    ['CONFIG_INVALID', 'plugins.http'],
    ['CONFIG_INVALID', 'plugins.analytics'],
    ['KERNEL_PLUGIN_LOAD_FAILED', 'gone'],
    ['KERNEL_PLUGIN_LOAD_FAILED', 'throws'],
    ['KERNEL_PLUGIN_LOAD_FAILED', 'nodefault'],
    ['CONFIG_INVALID', 'plugins.renamed'],
    ['KERNEL_PLUGIN_LOAD_FAILED', 'pkg'],
  ]);
  const by = (key: string) => got.find((f) => f.details.path === `plugins.${key}` || f.details.plugin === key)!;
  t.match(by('http').message, "'http' is a built-in plugin; path and package are for third-party plugins");
  t.match(by('analytics').message, "there is no built-in plugin 'analytics' (built-in: http); set path or package");
  t.match(by('gone').message, `Plugin 'gone' could not be loaded from ./missing: `);
  t.match(by('gone').message, `Fix: check plugins.gone.path (resolved from ${dir})`);
  t.match(by('throws').message, 'cannot reach the license server');
  t.match(by('nodefault').message, 'the module has no default export');
  t.match(by('renamed').message, "declares the plugin 'other'; use that name as the key");
  t.match(by('pkg').message, 'Fix: install the package: npm install osr-plugin-not-installed');
});

t.test('a third-party plugin gets only the capabilities its config grants', async (t) => {
  const got = await failures(boot({ probe: { path: './probe.mjs' } }));
  t.same(got.map((f) => [f.code, f.details.plugin, f.details.token]), [['KERNEL_TOKEN_NOT_GRANTED', 'probe', 'http.routes']], 'not granted: the boot fails');
  t.match(got[0]?.message, "Plugin 'probe' requires 'http.routes', which the configuration does not grant it (provider: 'http'). Fix: add 'http.routes' to plugins.probe.grants");

  const rt = await boot({ probe: { path: './probe.mjs', grants: ['http.routes'], greeting: 'Hi' } });
  t.teardown(() => rt.close());
  t.equal(seen.hasServer, false, 'an optional capability it was not granted is absent');
  t.equal(seen.server, undefined);
  t.same(seen.options, { greeting: 'Hi' }, 'its options');
  t.same((await rt.inject('/api/v1/probe')).json(), { probe: true }, 'its route is served');

  const wide = await boot({ probe: { path: './probe.mjs', grants: ['http.routes', 'http.server'] } });
  t.teardown(() => wide.close());
  t.equal(seen.hasServer, true, 'granted, the optional capability is there');
});

t.test('http plugin options are checked against its schema, by path', async (t) => {
  const unknown = await failures(boot({ http: { bodyLimt: 5 } as never }));
  t.same(unknown.map((f) => [f.code, f.details.plugin]), [['KERNEL_INVALID_OPTIONS', 'http']]);
  t.match(unknown[0]?.message, 'bodyLimt', 'the message names the unknown key');
  t.equal(unknown[0]?.details.path, 'plugins.http.bodyLimt', 'the path names the unknown key');

  const wrong = await failures(boot({ http: { bodyLimit: 'big' } as never }));
  t.same(wrong.map((f) => [f.code, f.details.path]), [['KERNEL_INVALID_OPTIONS', 'plugins.http.bodyLimit']]);
  t.match(wrong[0]?.message, "Options of plugin 'http' are not valid at plugins.http.bodyLimit: ");
});
