/** Hooks (closed list, priority then boot order, object filter) and retention contracts. */
import t from 'tap';
import { HOOK_NAMES, type HooksRegistry, type RetentionContract, type RetentionRegister } from '../../capabilities/index.ts';
import { HookStore } from '../../kernel/hookStore.ts';
import { assertFailures, bootError, entry, kernelOf } from './fixtures.ts';

const contract = (name: string, extra: Partial<RetentionContract> = {}): RetentionContract =>
  ({ name, object: 'notification', description: 'sent notifications', keepDays: 90, action: 'delete', ageField: 'created_at', ...extra });

t.test('an unknown hook name is refused with the list of known ones', async (t) => {
  const kernel = kernelOf([entry({ name: 'legacy', register: (ctx) => ctx.hook('data.beforeSave' as never, () => {}) })]);
  assertFailures(t, await bootError(kernel), [{
    code: 'KERNEL_UNKNOWN_HOOK',
    message: `Plugin 'legacy' registered a handler for unknown hook 'data.beforeSave'. Fix: use one of: ${HOOK_NAMES.join(', ')}`,
  }]);
});

t.test('a handler that is not a function, or a priority that is not a number, is refused', async (t) => {
  const store = new HookStore();
  t.throws(() => store.add('p', 'data.afterFind', 'log' as never), { code: 'KERNEL_UNKNOWN_HOOK', message: /Fix: pass a function as the handler$/ });
  t.throws(() => store.add('p', 'data.afterFind', () => {}, { priority: Number.NaN }), { code: 'KERNEL_UNKNOWN_HOOK', message: /Fix: pass a finite number as the priority/ });
  t.same(store.all(), [], 'nothing was stored');
});

t.test('appliesTo is a function, on the data write hooks only; the registry keeps it', async (t) => {
  const store = new HookStore();
  t.throws(() => store.add('p', 'data.afterFind', () => {}, { appliesTo: () => false }), { code: 'KERNEL_UNKNOWN_HOOK', message: /appliesTo takes a function, on the data write hooks only/ });
  t.throws(() => store.add('p', 'data.afterUpdate', () => {}, { appliesTo: true as never }), { code: 'KERNEL_UNKNOWN_HOOK', message: /appliesTo takes a function/ });
  t.same(store.all(), [], 'nothing was stored');
  const appliesTo = (object: string) => object === 'ticket';
  store.add('p', 'data.afterUpdate', () => {}, { appliesTo });
  const [kept] = store.handlers('data.afterUpdate', 'memo');
  t.same([kept?.appliesTo === appliesTo, kept?.appliesTo?.('memo', 'env'), kept?.appliesTo?.('ticket', 'env')], [true, false, true], 'asked per object and environment');
});

t.test('handlers run by priority, then by plugin boot order, even when added in start', async (t) => {
  let registry: HooksRegistry | undefined;
  const kernel = kernelOf([
    entry({
      name: 'c', requires: ['auth.session', 'hooks.registry'],
      register: (ctx) => {
        ctx.hook('data.beforeInsert', () => 'c-100');
        registry = ctx.resolve('hooks.registry') as HooksRegistry;
      },
    }),
    entry({
      name: 'a', provides: ['auth.session'],
      register: (ctx) => {
        ctx.provide('auth.session', {} as never);
        ctx.hook('data.beforeInsert', () => 'a-100');
      },
      start: (ctx) => ctx.hook('data.beforeInsert', () => 'a-10', { priority: 10 }),
    }),
    entry({ name: 'b', register: (ctx) => ctx.hook('data.beforeInsert', () => 'b-10', { priority: 10 }) }),
  ]);
  await kernel.boot();
  t.same(kernel.timeline.filter((s) => s.endsWith(':register')), ['a:register', 'c:register', 'b:register'], 'boot order a, c, b');
  const run = registry!.handlers('data.beforeInsert').map((h) => h.handler({}));
  t.same(run, ['a-10', 'b-10', 'a-100', 'c-100'], "a's start-time handler keeps a's boot rank over b's");
});

t.test('an object filter limits a handler to that object; unfiltered ones apply to all', async (t) => {
  let registry: HooksRegistry | undefined;
  const kernel = kernelOf([
    entry({
      name: 'crm', requires: ['hooks.registry'],
      register: (ctx) => {
        ctx.hook('data.afterUpdate', () => 'every');
        ctx.hook('data.afterUpdate', () => 'account', { object: 'account' });
        registry = ctx.resolve('hooks.registry') as HooksRegistry;
      },
    }),
  ]);
  await kernel.boot();
  const names = (object?: string) => registry!.handlers('data.afterUpdate', object).map((h) => h.handler({}));
  t.same(names('account'), ['every', 'account']);
  t.same(names('contact'), ['every']);
  t.same(names(), ['every']);
  t.same(registry!.handlers('data.afterDelete', 'account'), [], 'per hook name');
  t.throws(() => { (registry!.all()[0] as { priority: number }).priority = -1; }, TypeError, 'registrations cannot be retargeted by a reader');
});

t.test('runtime.ready runs after boot, runtime.stopping before drain; a throwing one is only logged', async (t) => {
  const order: string[] = [];
  const kernel = kernelOf([
    entry({
      name: 'jobs',
      register: (ctx) => {
        ctx.hook('runtime.ready', () => { order.push('ready-hook'); throw new Error('ignored'); });
        ctx.hook('runtime.stopping', () => { order.push('stopping-hook'); });
      },
      ready: () => { order.push('ready'); },
      drain: () => { order.push('drain'); },
    }),
  ]);
  await kernel.boot();
  await kernel.stop();
  t.same(order, ['ready', 'ready-hook', 'stopping-hook', 'drain']);
});

t.test('runtime.stopping does not run when the boot failed', async (t) => {
  const order: string[] = [];
  const kernel = kernelOf([
    entry({ name: 'jobs', register: (ctx) => ctx.hook('runtime.stopping', () => { order.push('stopping-hook'); }) }),
    entry({ name: 'db', start: () => { throw new Error('down'); } }),
  ]);
  await bootError(kernel);
  await kernel.stop();
  t.same(order, []);
});

const invalid: Array<{ name: string; contract: unknown; includes: string[] }> = [
  { name: 'a negative window', contract: contract('mail.log', { keepDays: -1 }), includes: ['at keepDays: '] },
  { name: 'an unknown action', contract: contract('mail.log', { action: 'shred' as never }), includes: ['at action: '] },
  { name: 'an upper-case name', contract: contract('Mail.Log'), includes: ['at name: must be lower-case, dots and dashes allowed'] },
  { name: 'a schema-qualified table', contract: contract('mail.log', { object: 'public.users' }), includes: ['at object: must be a plain table or column name'] },
  { name: 'an expression as age column', contract: contract('mail.log', { ageField: 'created_at) or (1=1' }), includes: ['at ageField: must be a plain table or column name'] },
  { name: 'an expression as filter column', contract: contract('mail.log', { filter: { 'kind = kind or 1': 'x' } }), includes: ['at filter.kind = kind or 1: Invalid key in record'] },
  { name: 'a filter value that is an object', contract: contract('mail.log', { filter: { kind: { $ne: 'x' } } as never }), includes: ['at filter.kind: '] },
  { name: 'an unknown field', contract: { ...contract('mail.log'), purgeNow: true }, includes: ['at (root): ', 'purgeNow'] },
];
for (const row of invalid) {
  t.test(`an invalid retention contract is refused: ${row.name}`, async (t) => {
    const kernel = kernelOf([entry({ name: 'mail', register: (ctx) => ctx.retention(row.contract as RetentionContract) })]);
    assertFailures(t, await bootError(kernel), [{
      code: 'KERNEL_INVALID_RETENTION',
      includes: ["Plugin 'mail' declared an invalid retention contract ", ...row.includes, 'Fix: declare { name, object, description, keepDays, action, ageField, filter? }'],
    }]);
  });
}

t.test('a retention contract name is unique across plugins', async (t) => {
  const kernel = kernelOf([
    entry({ name: 'notify', register: (ctx) => ctx.retention(contract('notifications.history')) }),
    entry({ name: 'mail', register: (ctx) => ctx.retention(contract('notifications.history')) }),
  ]);
  assertFailures(t, await bootError(kernel), [{
    code: 'KERNEL_INVALID_RETENTION',
    message: "Plugin 'mail' declared an invalid retention contract at name: 'notifications.history' is already declared by 'notify'. Fix: give each contract a unique name",
  }]);
});

t.test('contracts are readable through retention.register by a plugin that requires it', async (t) => {
  let seen: unknown;
  let register: RetentionRegister | undefined;
  const kernel = kernelOf([
    entry({
      name: 'reporter', requires: ['retention.register'],
      register: (ctx) => { register = ctx.resolve('retention.register') as RetentionRegister; },
      ready: () => { seen = register!.contracts(); },
    }),
    entry({ name: 'notify', register: (ctx) => ctx.retention(contract('notifications.history')) }),
    entry({ name: 'audit', register: (ctx) => ctx.retention(contract('audit.events', { object: 'audit_event', keepDays: 0, action: 'archive' })) }),
  ]);
  await kernel.boot();
  t.same(seen, [
    { ...contract('notifications.history'), plugin: 'notify' },
    { ...contract('audit.events', { object: 'audit_event', keepDays: 0, action: 'archive' }), plugin: 'audit' },
  ]);
  const list = register!.contracts();
  t.throws(() => { (list[0] as { keepDays: number }).keepDays = 1; }, TypeError, "a reader cannot shorten another plugin's window");
  t.throws(() => { (list as unknown as RetentionContract[]).length = 0; }, TypeError, 'nor empty the list');
  t.equal(register!.contracts().length, 2);
});
