/** Failures found before any plugin code runs: one KernelBootError listing every problem. */
import t from 'tap';
import { z } from 'zod';
import type { PluginEntry } from '../../kernel/index.ts';
import { assertFailures, bootError, entry, kernelOf, rawEntry, type ExpectedFailure } from './fixtures.ts';

const MANIFEST_FIX = 'Fix: export definePlugin({ name, version, kernel, requires, provides, register }) with the fields documented in docs/plugins.md';

const rows: Array<{ name: string; plugins: PluginEntry[]; expect: ExpectedFailure[] }> = [
  {
    name: 'a required token nobody provides',
    plugins: [entry({ name: 'rest', requires: ['auth.session'] })],
    expect: [{
      code: 'KERNEL_TOKEN_NOT_PROVIDED',
      includes: ["Plugin 'rest' requires 'auth.session', but no plugin provides it.", "Fix: enable or install a plugin that provides 'auth.session' (", "or disable 'rest'"],
    }],
  },
  {
    name: 'a kernel token the host does not serve (runtime.info without runtimeInfo)',
    plugins: [entry({ name: 'meta', requires: ['runtime.info'] })],
    expect: [{
      code: 'KERNEL_TOKEN_NOT_PROVIDED',
      message: "Plugin 'meta' requires 'runtime.info', but no plugin provides it. Fix: the kernel serves 'runtime.info' only when the host passes it to createKernel; pass it, or disable 'meta'",
    }],
  },
  {
    name: 'the only provider is disabled',
    plugins: [entry({ name: 'auth', provides: ['auth.session'] }, { enabled: false }), entry({ name: 'rest', requires: ['auth.session'] })],
    expect: [{
      code: 'KERNEL_PROVIDER_DISABLED',
      message: "Plugin 'rest' requires 'auth.session', whose provider 'auth' is disabled. Fix: set plugins.auth.enabled to true, or disable 'rest'",
    }],
  },
  {
    name: 'grants list the other token only',
    plugins: [
      entry({ name: 'http', provides: ['http.routes'] }),
      entry({ name: 'third', requires: ['http.routes', 'hooks.registry'] }, { grants: ['hooks.registry'], source: './third' }),
    ],
    expect: [{
      code: 'KERNEL_TOKEN_NOT_GRANTED',
      message: "Plugin 'third' requires 'http.routes', which the configuration does not grant it (provider: 'http'). Fix: add 'http.routes' to plugins.third.grants in runtime.config if you trust it with that capability",
    }],
  },
  {
    name: 'an empty grants list and a kernel token',
    plugins: [entry({ name: 'third', requires: ['hooks.registry'] }, { grants: [] })],
    expect: [{ code: 'KERNEL_TOKEN_NOT_GRANTED', includes: ["Plugin 'third' requires 'hooks.registry'", "(provider: 'kernel')", 'plugins.third.grants'] }],
  },
  {
    name: 'two plugins require each other',
    plugins: [
      entry({ name: 'a', provides: ['http.routes'], requires: ['auth.session'] }),
      entry({ name: 'b', provides: ['auth.session'], requires: ['http.routes'] }),
    ],
    expect: [{
      code: 'KERNEL_DEPENDENCY_CYCLE',
      message: "Plugins depend on each other in a cycle: a (needs 'auth.session') -> b (needs 'http.routes') -> a. Fix: move one of these capabilities into a plugin of its own, so that the dependencies run one way",
    }],
  },
  {
    name: 'a cycle through an optional dependency (optional orders too)',
    plugins: [
      entry({ name: 'a', provides: ['http.routes'], requires: ['auth.session'] }),
      entry({ name: 'b', provides: ['auth.session'], optional: ['http.routes'] }),
    ],
    expect: [{ code: 'KERNEL_DEPENDENCY_CYCLE', includes: ["a (needs 'auth.session') -> b (needs 'http.routes') -> a."] }],
  },
  {
    name: 'two providers of a single token',
    plugins: [entry({ name: 'auth', provides: ['auth.session'] }), entry({ name: 'auth2', provides: ['auth.session'] })],
    expect: [{
      code: 'KERNEL_DUPLICATE_PROVIDER',
      message: "Capability 'auth.session' takes one provider, but 'auth' and 'auth2' both provide it. Fix: disable one of them (plugins.auth2.enabled: false or plugins.auth.enabled: false)",
    }],
  },
  {
    name: 'a plugin provides a kernel-owned token',
    plugins: [entry({ name: 'rogue', provides: ['hooks.registry'] })],
    expect: [{
      code: 'KERNEL_DUPLICATE_PROVIDER',
      message: "Capability 'hooks.registry' takes one provider, but 'kernel' and 'rogue' both provide it. Fix: remove 'hooks.registry' from the provides of 'rogue': the kernel provides it",
    }],
  },
  {
    name: 'a plugin provides a kernel-owned token the host does not serve',
    plugins: [entry({ name: 'rogue', provides: ['runtime.info'] })],
    expect: [{ code: 'KERNEL_DUPLICATE_PROVIDER', includes: ["'kernel' and 'rogue' both provide it", "remove 'runtime.info' from the provides of 'rogue'"] }],
  },
  {
    name: 'misspelt tokens get a suggestion, per field',
    plugins: [entry({ name: 'web', requires: ['http.route'], provides: ['auth.sesion'] })],
    expect: [
      { code: 'KERNEL_UNKNOWN_TOKEN', message: "Plugin 'web' names unknown capability 'http.route' in requires. Fix: did you mean 'http.routes'?" },
      { code: 'KERNEL_UNKNOWN_TOKEN', message: "Plugin 'web' names unknown capability 'auth.sesion' in provides. Fix: did you mean 'auth.session'?" },
    ],
  },
  {
    name: 'an unknown token with nothing close lists the registry',
    plugins: [entry({ name: 'pay', optional: ['payments.stripe'] })],
    expect: [{
      code: 'KERNEL_UNKNOWN_TOKEN',
      includes: ["Plugin 'pay' names unknown capability 'payments.stripe' in optional.", 'Fix: use one of the registered tokens (capabilities/registry.ts): ', 'http.routes', 'auth.session'],
    }],
  },
  {
    name: 'a plugin built for an older protocol',
    plugins: [entry({ name: 'old', version: '1.2.0', kernel: '^15.0.0' })],
    expect: [{
      code: 'KERNEL_PROTOCOL_INCOMPATIBLE',
      message: "Plugin 'old' 1.2.0 targets protocol '^15.0.0', but this runtime speaks protocol 16.0.0. Fix: upgrade 'old' to a release built for protocol 16.x",
    }],
  },
  {
    name: 'a plugin built for a newer protocol',
    plugins: [entry({ name: 'future', version: '2.0.0', kernel: '^17.0.0' })],
    expect: [{
      code: 'KERNEL_PROTOCOL_INCOMPATIBLE',
      message: "Plugin 'future' 2.0.0 targets protocol '^17.0.0', but this runtime speaks protocol 16.0.0. Fix: upgrade the runtime to a release whose protocol satisfies '^17.0.0', or use an older release of 'future'",
    }],
  },
  {
    name: 'a protocol that is not a range',
    plugins: [entry({ name: 'odd', kernel: 'latest' })],
    expect: [{ code: 'KERNEL_PROTOCOL_INCOMPATIBLE', includes: ["targets protocol 'latest'", "Fix: declare a valid semver range such as '^16.0.0'"] }],
  },
  {
    name: 'a manifest with three wrong fields',
    plugins: [rawEntry({ name: 'Bad_Name', version: 'one', kernel: '^16.0.0', register: 'nope' }, './bad')],
    expect: [
      { code: 'KERNEL_INVALID_MANIFEST', message: `Plugin 'Bad_Name' has an invalid manifest at name: must be kebab-case, optionally @scope/name. ${MANIFEST_FIX}` },
      { code: 'KERNEL_INVALID_MANIFEST', message: `Plugin 'Bad_Name' has an invalid manifest at version: must be a semver version such as 1.0.0. ${MANIFEST_FIX}` },
      { code: 'KERNEL_INVALID_MANIFEST', message: `Plugin 'Bad_Name' has an invalid manifest at register: must be a function. ${MANIFEST_FIX}` },
    ],
  },
  {
    name: 'a module that exports no manifest is named by its source',
    plugins: [rawEntry(null, './broken.js')],
    expect: [{ code: 'KERNEL_INVALID_MANIFEST', includes: ["Plugin '(from ./broken.js)' has an invalid manifest at (root): ", MANIFEST_FIX] }],
  },
  {
    name: 'two plugins with one name',
    plugins: [entry({ name: 'audit' }), entry({ name: 'audit' }, { source: './plugins/audit' })],
    expect: [{
      code: 'KERNEL_DUPLICATE_PLUGIN',
      message: "Plugin name 'audit' is used by two plugins (builtin, ./plugins/audit). Fix: remove one of them from runtime.config, or rename one plugin",
    }],
  },
  {
    name: 'options that do not match the schema, one line per key',
    plugins: [entry(
      { name: 'web', options: z.object({ port: z.number().int(), tls: z.object({ cert: z.string() }) }) },
      { options: { port: 'eighty', tls: {} } },
    )],
    expect: [
      { code: 'KERNEL_INVALID_OPTIONS', includes: ["Options of plugin 'web' are not valid at plugins.web.port: ", 'expected number', 'Fix: correct plugins.web in runtime.config'] },
      { code: 'KERNEL_INVALID_OPTIONS', includes: ["Options of plugin 'web' are not valid at plugins.web.tls.cert: ", 'expected string'] },
    ],
  },
  {
    name: "onBootFailure 'continue' on a plugin another requires",
    plugins: [entry({ name: 'auth', provides: ['auth.session'], onBootFailure: 'continue' }), entry({ name: 'rest', requires: ['auth.session'] })],
    expect: [{
      code: 'KERNEL_CONTINUE_NOT_ALLOWED',
      message: "Plugin 'auth' sets onBootFailure 'continue', but 'rest' requires its 'auth.session'. Fix: remove onBootFailure: 'continue' from 'auth' (a plugin others require must boot)",
    }],
  },
];

for (const row of rows) {
  t.test(row.name, async (t) => {
    const kernel = kernelOf(row.plugins);
    assertFailures(t, await bootError(kernel), row.expect);
    t.same(kernel.timeline, [], 'no plugin code ran');
  });
}

t.test('every problem of a boot is reported together, in one error', async (t) => {
  const kernel = kernelOf([
    entry({ name: 'old', kernel: '^15.0.0' }),
    entry({ name: 'web', requires: ['http.route'] }),
    entry({ name: 'rogue', provides: ['hooks.registry'] }),
    entry({ name: 'rest', requires: ['auth.session'] }),
    entry({ name: 'third', requires: ['retention.register'] }, { grants: [] }),
  ]);
  const error = await bootError(kernel);
  assertFailures(t, error, [
    { code: 'KERNEL_PROTOCOL_INCOMPATIBLE', includes: ["Plugin 'old'"] },
    { code: 'KERNEL_UNKNOWN_TOKEN', includes: ["did you mean 'http.routes'?"] },
    { code: 'KERNEL_DUPLICATE_PROVIDER', includes: ["'kernel' and 'rogue'"] },
    { code: 'KERNEL_TOKEN_NOT_PROVIDED', includes: ["Plugin 'rest' requires 'auth.session'"] },
    { code: 'KERNEL_TOKEN_NOT_GRANTED', includes: ["Plugin 'third' requires 'retention.register'"] },
  ]);
  t.ok(error.message.startsWith('The runtime could not boot (5 problem(s)):\n  - [KERNEL_PROTOCOL_INCOMPATIBLE] '), 'headline, then one line per problem');
  t.equal(error.details.count, 5);
});

t.test('a disabled second provider, or a disabled plugin with missing needs, is no conflict', async (t) => {
  const kernel = kernelOf([
    entry({ name: 'auth', provides: ['auth.session'] }),
    entry({ name: 'auth2', provides: ['auth.session'] }, { enabled: false }),
    entry({ name: 'idle', requires: ['http.routes'] }, { enabled: false }),
  ]);
  await kernel.boot();
  t.same(kernel.states().map((s) => [s.name, s.status]), [['auth', 'ready'], ['auth2', 'disabled'], ['idle', 'disabled']]);
});

t.test('states() still describes a boot that failed on a missing manifest', async (t) => {
  const kernel = kernelOf([rawEntry(null, './broken.js'), entry({ name: 'fine' })]);
  await bootError(kernel);
  t.same(kernel.states().map((s) => [s.name, s.status]), [['(from ./broken.js)', 'pending'], ['fine', 'pending']]);
});
