/** Phase order, stopping, freezing and onBootFailure 'continue'. */
import t from 'tap';
import type { PluginContext } from '../../kernel/index.ts';
import { perConsumer } from '../../kernel/index.ts';
import type { HooksRegistry, RetentionRegister } from '../../capabilities/index.ts';
import { bootError, entry, kernelOf } from './fixtures.ts';

const phases = { start: () => {}, ready: () => {}, drain: () => {}, stop: () => {} };
const contract = (name: string) => ({ name, object: 'event', description: 'events', keepDays: 30, action: 'delete' as const, ageField: 'created_at' });

t.test('register all in dependency order, then start, then ready; stop drains then stops in reverse', async (t) => {
  const kernel = kernelOf([
    entry({ name: 'rest', requires: ['http.routes', 'auth.session'], ...phases }),
    entry({ name: 'http', provides: ['http.routes'], optional: ['auth.session'], ...phases }),
    entry({ name: 'auth', provides: ['auth.session'], ...phases }),
  ]);
  await kernel.boot();
  t.same(kernel.timeline, [
    'auth:register', 'http:register', 'rest:register',
    'auth:start', 'http:start', 'rest:start',
    'auth:ready', 'http:ready', 'rest:ready',
  ]);
  t.same(kernel.states().map((s) => s.status), ['ready', 'ready', 'ready']);
  await kernel.stop();
  t.same(kernel.timeline.slice(9), ['rest:drain', 'http:drain', 'auth:drain', 'rest:stop', 'http:stop', 'auth:stop']);
  t.same(kernel.states().map((s) => s.status), ['stopped', 'stopped', 'stopped']);
});

t.test('when a start fails, the plugins that started are drained and stopped, the failed one is not', async (t) => {
  const kernel = kernelOf([
    entry({ name: 'a', ...phases }),
    entry({ name: 'b', ...phases, start: () => { throw new Error('broken'); } }),
    entry({ name: 'c', ...phases }),
  ]);
  await bootError(kernel);
  t.same(kernel.timeline, [
    'a:register', 'b:register', 'c:register',
    'a:start', 'b:start', 'c:start',
    'c:drain', 'a:drain', 'c:stop', 'a:stop',
  ]);
  t.same(kernel.states().map((s) => s.status), ['stopped', 'failed', 'stopped']);
  await kernel.stop();
  t.equal(kernel.timeline.length, 10, 'a later kernel.stop() does not stop them again');
});

t.test('when a register fails, nothing started, so nothing is drained or stopped', async (t) => {
  const kernel = kernelOf([entry({ name: 'a', ...phases }), entry({ name: 'b', ...phases, register: () => { throw new Error('bad'); } })]);
  await bootError(kernel);
  t.same(kernel.timeline, ['a:register', 'b:register']);
});

t.test('a plugin that started but failed in ready is still stopped (its start opened resources)', async (t) => {
  const kernel = kernelOf([
    entry({ name: 'db', ...phases }),
    entry({ name: 'http', ...phases, ready: () => { throw new Error('EADDRINUSE'); } }),
  ]);
  await bootError(kernel);
  t.same(kernel.timeline.slice(4), ['db:ready', 'http:ready', 'http:drain', 'db:drain', 'http:stop', 'db:stop']);
  t.same(kernel.states().map((s) => s.status), ['stopped', 'failed']);
});

t.test('stop twice (and concurrently) drains and stops once; stop before boot does nothing', async (t) => {
  const idle = kernelOf([entry({ name: 'a', ...phases })]);
  await idle.stop();
  t.same(idle.timeline, []);

  const kernel = kernelOf([entry({ name: 'a', ...phases })]);
  await kernel.boot();
  const first = kernel.stop();
  const second = kernel.stop();
  t.equal(first, second, 'one shutdown');
  await first;
  await kernel.stop();
  t.same(kernel.timeline, ['a:register', 'a:start', 'a:ready', 'a:drain', 'a:stop']);
});

t.test('a failing stop is logged and the others still stop', async (t) => {
  const kernel = kernelOf([entry({ name: 'a', ...phases }), entry({ name: 'b', ...phases, stop: () => { throw new Error('stuck'); } })]);
  await kernel.boot();
  await kernel.stop();
  t.same(kernel.timeline.slice(6), ['b:drain', 'a:drain', 'b:stop', 'a:stop']);
});

t.test('booting twice is refused', async (t) => {
  const kernel = kernelOf([entry({ name: 'a' })]);
  await kernel.boot();
  await t.rejects(kernel.boot(), { code: 'KERNEL_FROZEN', message: "Plugin 'kernel' tried to boot twice after the runtime started; the kernel is frozen. Fix: create a new kernel" });
});

t.test('frozen after boot: provide, hook and retention from a captured context are refused', async (t) => {
  let captured: PluginContext<never, never, never, unknown> | undefined;
  const kernel = kernelOf([entry({ name: 'late', provides: ['auth.session'], register: (ctx) => { captured = ctx; ctx.provide('auth.session', {} as never); } })]);
  t.equal(kernel.frozen, false);
  await kernel.boot();
  t.equal(kernel.frozen, true);
  const ctx = captured!;
  t.throws(() => ctx.provide('auth.session' as never, {} as never), {
    code: 'KERNEL_FROZEN',
    message: "Plugin 'late' tried to provide 'auth.session' after the runtime started; the kernel is frozen. Fix: do this in the register phase of 'late'",
  });
  t.throws(() => ctx.hook('data.afterInsert', () => {}), { code: 'KERNEL_FROZEN', message: /tried to register a 'data.afterInsert' hook after the runtime started/ });
  t.throws(() => ctx.retention(contract('late.events')), { code: 'KERNEL_FROZEN', message: /tried to declare retention contract 'late.events' after/ });
});

t.test("onBootFailure 'continue': the failing plugin is left out and the rest boots without it", async (t) => {
  const discarded: string[] = [];
  const built: string[] = [];
  let registry: HooksRegistry | undefined;
  let register: RetentionRegister | undefined;
  const kernel = kernelOf([
    entry({
      name: 'tenant', provides: ['auth.session'],
      register: (ctx) => ctx.provide('auth.session', perConsumer((c) => { built.push(c.name); return {} as never; }, (c) => discarded.push(c.name))),
    }),
    entry({
      name: 'audit', requires: ['auth.session'], onBootFailure: 'continue', ...phases,
      register: (ctx) => {
        ctx.resolve('auth.session');
        ctx.hook('data.afterInsert', () => 'audit');
        ctx.retention(contract('audit.events'));
      },
      start: () => { throw new Error('audit store unreachable'); },
    }),
    entry({ name: 'extra', onBootFailure: 'continue', register: () => { throw new Error('bad'); } }),
    entry({
      name: 'web', requires: ['hooks.registry', 'retention.register'], ...phases,
      register: (ctx) => {
        ctx.hook('data.afterInsert', () => 'web');
        registry = ctx.resolve('hooks.registry') as HooksRegistry;
        register = ctx.resolve('retention.register') as RetentionRegister;
      },
    }),
  ]);
  await kernel.boot();
  t.same(kernel.states().map((s) => [s.name, s.status, s.error?.code]), [
    ['tenant', 'ready', undefined], ['audit', 'failed', 'KERNEL_PHASE_FAILED'], ['extra', 'failed', 'KERNEL_PHASE_FAILED'], ['web', 'ready', undefined],
  ]);
  t.same(kernel.states()[1]!.error?.message.startsWith("Plugin 'audit' failed in start: audit store unreachable."), true);
  t.same(registry!.handlers('data.afterInsert').map((h) => h.plugin), ['web'], "audit's hook is dropped");
  t.same(register!.contracts(), [], "audit's retention contract is dropped");
  t.same(built, ['audit'], 'the service was built for its consumer');
  t.same(discarded, ['audit'], 'its provider forgot it; extra declared nothing, so nothing is discarded for it');
  t.notOk(kernel.timeline.includes('audit:ready'), 'left out of ready');
  await kernel.stop();
  t.notOk(kernel.timeline.includes('audit:stop'), 'never started, never stopped');
  t.ok(kernel.timeline.includes('web:stop'));
});

t.test("onBootFailure 'continue' in ready: left out, but stopped at shutdown since it started", async (t) => {
  const kernel = kernelOf([entry({ name: 'mailer', onBootFailure: 'continue', ...phases, ready: () => { throw new Error('smtp down'); } })]);
  await kernel.boot();
  t.equal(kernel.states()[0]!.status, 'failed');
  await kernel.stop();
  t.same(kernel.timeline, ['mailer:register', 'mailer:start', 'mailer:ready', 'mailer:drain', 'mailer:stop']);
  t.equal(kernel.states()[0]!.status, 'failed', 'the failure stays visible');
});
