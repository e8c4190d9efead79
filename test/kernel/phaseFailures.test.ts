/** Failures raised while plugin code runs (register, start, ready), each a coded boot-error line. */
import t from 'tap';
import { codedError, type KernelOptions, type PluginEntry } from '../../kernel/index.ts';
import { assertFailures, bootError, entry, kernelOf, type ExpectedFailure } from './fixtures.ts';

const never = () => new Promise<void>(() => {});

const rows: Array<{ name: string; plugins: PluginEntry[]; options?: Partial<KernelOptions>; expect: ExpectedFailure[]; inReady?: true }> = [
  {
    name: 'a lookup of an undeclared token in register, even one that is provided',
    plugins: [
      entry({ name: 'auth', provides: ['auth.session'] }),
      entry({ name: 'nosy', register: (ctx) => void ctx.resolve('auth.session') }),
    ],
    expect: [{
      code: 'KERNEL_UNDECLARED_LOOKUP',
      message: "Plugin 'nosy' looked up 'auth.session', which it does not declare in requires or optional. Fix: add 'auth.session' to the requires (or optional) of 'nosy' and grant it in runtime.config",
    }],
  },
  {
    name: 'a lookup of an undeclared token in start',
    plugins: [entry({ name: 'nosy', requires: ['hooks.registry'], start: (ctx) => void ctx.resolve('retention.register') })],
    expect: [{ code: 'KERNEL_UNDECLARED_LOOKUP', includes: ["Plugin 'nosy' looked up 'retention.register'", "add 'retention.register' to the requires (or optional) of 'nosy'"] }],
  },
  {
    name: 'a start that throws',
    plugins: [entry({ name: 'db', start: () => { throw new Error('database unreachable'); } })],
    expect: [{
      code: 'KERNEL_PHASE_FAILED',
      message: "Plugin 'db' failed in start: database unreachable. Fix: see the log of 'db'; correct its configuration or disable it (plugins.db.enabled: false)",
    }],
  },
  {
    name: 'a start that rejects with a coded error keeps its code in the reason',
    plugins: [entry({ name: 'db', start: async () => { throw codedError('SERVICE_UNAVAILABLE', { service: 'PostgreSQL', reason: 'connection refused' }); } })],
    expect: [{
      code: 'KERNEL_PHASE_FAILED',
      includes: ["Plugin 'db' failed in start: [SERVICE_UNAVAILABLE] PostgreSQL is unavailable: connection refused. Retry shortly.. Fix: see the log of 'db'"],
    }],
  },
  {
    name: 'a register that throws a string',
    plugins: [entry({ name: 'odd', register: () => { throw 'no config'; } })],
    expect: [{ code: 'KERNEL_PHASE_FAILED', includes: ["Plugin 'odd' failed in register: no config. Fix:"] }],
  },
  {
    name: 'a ready that throws',
    inReady: true,
    plugins: [entry({ name: 'http', ready: () => { throw new Error('listen EADDRINUSE'); } })],
    expect: [{ code: 'KERNEL_PHASE_FAILED', includes: ["Plugin 'http' failed in ready: listen EADDRINUSE."] }],
  },
  {
    name: 'a start that never settles, with the entry timeout',
    plugins: [entry({ name: 'slow', start: never }, { timeoutMs: 20 })],
    expect: [{
      code: 'KERNEL_PHASE_TIMEOUT',
      message: "Plugin 'slow' did not finish start within 20 ms. Fix: make start of 'slow' finish sooner, or raise plugins.slow.timeoutMs",
    }],
  },
  {
    name: 'the manifest timeout wins over the kernel default',
    plugins: [entry({ name: 'slow', register: never, timeoutMs: 25 })],
    options: { timeoutMs: 60_000 },
    expect: [{ code: 'KERNEL_PHASE_TIMEOUT', includes: ["Plugin 'slow' did not finish register within 25 ms."] }],
  },
  {
    name: 'the kernel default applies when nothing else is set',
    inReady: true,
    plugins: [entry({ name: 'slow', ready: never })],
    options: { timeoutMs: 15 },
    expect: [{ code: 'KERNEL_PHASE_TIMEOUT', includes: ["Plugin 'slow' did not finish ready within 15 ms."] }],
  },
  {
    name: 'a declared capability never provided',
    plugins: [entry({ name: 'auth', provides: ['auth.session'], register: () => {} })],
    expect: [{
      code: 'KERNEL_PROVIDE_MISSING',
      message: "Plugin 'auth' declares that it provides 'auth.session' but did not provide it during register. Fix: call ctx.provide('auth.session', service) in register",
    }],
  },
  {
    name: 'a capability provided without declaring it',
    plugins: [entry({ name: 'sly', register: (ctx) => ctx.provide('auth.session', {} as never) })],
    expect: [{
      code: 'KERNEL_NOT_PROVIDED_BY',
      message: "Plugin 'sly' provided 'auth.session', which its manifest does not list in provides. Fix: add 'auth.session' to the provides of 'sly'",
    }],
  },
  {
    name: 'dependents of a failed plugin, transitively, each name the provider that failed',
    plugins: [
      entry({ name: 'web', requires: ['http.routes'] }),
      entry({ name: 'rest', requires: ['auth.session'], provides: ['http.routes'] }),
      entry({ name: 'auth', provides: ['auth.session'], start: () => { throw new Error('no secret'); } }),
    ],
    expect: [
      { code: 'KERNEL_PHASE_FAILED', includes: ["Plugin 'auth' failed in start: no secret."] },
      {
        code: 'KERNEL_DEPENDENCY_FAILED',
        message: "Plugin 'rest' was not started because 'auth', which provides its 'auth.session', failed. Fix: resolve the failure of 'auth' first",
      },
      {
        code: 'KERNEL_DEPENDENCY_FAILED',
        message: "Plugin 'web' was not started because 'rest', which provides its 'http.routes', failed. Fix: resolve the failure of 'rest' first",
      },
    ],
  },
  {
    name: 'independent failures of one phase are reported together',
    plugins: [
      entry({ name: 'a', start: () => { throw new Error('first'); } }),
      entry({ name: 'b' }),
      entry({ name: 'c', start: () => { throw new Error('second'); } }),
    ],
    expect: [
      { code: 'KERNEL_PHASE_FAILED', includes: ["Plugin 'a' failed in start: first."] },
      { code: 'KERNEL_PHASE_FAILED', includes: ["Plugin 'c' failed in start: second."] },
    ],
  },
  {
    name: 'a provide in ready is refused as frozen',
    inReady: true,
    plugins: [entry({ name: 'late', provides: ['auth.session'], ready: (ctx) => ctx.provide('auth.session', {} as never) })],
    expect: [{
      code: 'KERNEL_FROZEN',
      message: "Plugin 'late' tried to provide 'auth.session' after the runtime started; the kernel is frozen. Fix: do this in the register phase of 'late'",
    }],
  },
];

for (const row of rows) {
  t.test(row.name, async (t) => {
    const kernel = kernelOf(row.plugins, row.options);
    assertFailures(t, await bootError(kernel), row.expect);
    t.equal(kernel.frozen, row.inReady === true, 'frozen only once every start completed');
  });
}

t.test('a failed plugin and its skipped dependents carry their error in states()', async (t) => {
  const kernel = kernelOf([
    entry({ name: 'auth', provides: ['auth.session'], start: () => { throw new Error('no secret'); } }),
    entry({ name: 'rest', requires: ['auth.session'] }),
  ]);
  await bootError(kernel);
  t.same(kernel.states().map((s) => [s.name, s.status, s.error?.code]), [
    ['auth', 'failed', 'KERNEL_PHASE_FAILED'],
    ['rest', 'skipped', 'KERNEL_DEPENDENCY_FAILED'],
  ]);
  t.same(kernel.timeline, ['auth:register', 'rest:register', 'auth:start'], 'rest never started');
});
