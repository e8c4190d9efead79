/** Each plugin resolves only what it declared, granted, from its own awilix scope. */
import t from 'tap';
import { z } from 'zod';
import { capabilityRegistry, capabilityTokens, type RuntimeInfo } from '../../capabilities/index.ts';
import { perConsumer } from '../../kernel/index.ts';
import { entry, kernelOf } from './fixtures.ts';

// The kernel only copies and freezes it, so a few fields stand for the whole settings object.
const runtimeInfo = { version: '16.0.0', protocol: '16.0.0', dataDir: 'data', requireAuth: true, apps: [] } as Partial<RuntimeInfo> as RuntimeInfo;

t.test('a plugin resolves what it declares and nothing else, even when provided', async (t) => {
  const seen: Record<string, unknown> = {};
  const session = { authenticate: async () => null };
  const kernel = kernelOf([
    entry({ name: 'auth', provides: ['auth.session'], register: (ctx) => ctx.provide('auth.session', session) }),
    entry({ name: 'http', provides: ['http.routes'] }),
    entry({
      name: 'rest', requires: ['auth.session'],
      register: (ctx) => {
        seen.session = ctx.resolve('auth.session');
        seen.has = ctx.has('auth.session');
        try {
          ctx.resolve('http.routes' as never);
        } catch (error) {
          seen.undeclared = error;
        }
        try {
          ctx.resolve('plugin' as never);
        } catch (error) {
          seen.internal = (error as { code: string }).code;
        }
      },
    }),
  ]);
  await kernel.boot();
  t.equal(seen.session, session, 'the declared service itself');
  t.equal(seen.has, true);
  t.match(seen.undeclared, {
    code: 'KERNEL_UNDECLARED_LOOKUP',
    message: "Plugin 'rest' looked up 'http.routes', which it does not declare in requires or optional. Fix: add 'http.routes' to the requires (or optional) of 'rest' and grant it in runtime.config",
  });
  t.equal(seen.internal, 'KERNEL_UNDECLARED_LOOKUP', "the scope's own entries are not reachable either");
});

t.test('an optional token: undefined when absent or not granted, the service when present', async (t) => {
  const seen: Record<string, unknown> = {};
  const kernel = kernelOf([
    entry({ name: 'auth', provides: ['auth.session'] }),
    entry({
      name: 'absent', optional: ['http.routes'],
      register: (ctx) => { seen.absent = [ctx.resolve('http.routes'), ctx.has('http.routes')]; },
    }),
    entry({
      name: 'present', optional: ['auth.session'],
      register: (ctx) => { seen.present = [ctx.resolve('auth.session'), ctx.has('auth.session')]; },
    }),
    entry({
      name: 'ungranted', optional: ['auth.session'],
      register: (ctx) => { seen.ungranted = [ctx.resolve('auth.session'), ctx.has('auth.session')]; },
    }, { grants: [] }),
  ]);
  await kernel.boot();
  t.same(seen.absent, [undefined, false]);
  t.same(seen.present, [{ from: 'auth' }, true]);
  t.same(seen.ungranted, [undefined, false], 'an optional token without a grant stays out of the scope');
});

t.test('a perConsumer service is built once per consumer, with the consumer name', async (t) => {
  const calls: string[] = [];
  const got: Record<string, unknown> = {};
  const kernel = kernelOf([
    entry({
      name: 'http', provides: ['http.routes'],
      register: (ctx) => ctx.provide('http.routes', perConsumer((consumer) => {
        calls.push(consumer.name);
        return { add: () => {}, list: () => [], owner: consumer.name } as never;
      })),
    }),
    entry({ name: 'rest', requires: ['http.routes'], register: (ctx) => { got.rest = [ctx.resolve('http.routes'), ctx.resolve('http.routes')]; } }),
    entry({ name: 'meta', requires: ['http.routes'], register: (ctx) => { got.meta = ctx.resolve('http.routes'); } }),
  ]);
  await kernel.boot();
  const [first, again] = got.rest as Array<{ owner: string }>;
  t.equal(first!.owner, 'rest');
  t.equal(again, first, 'one instance per consumer');
  t.equal((got.meta as { owner: string }).owner, 'meta');
  t.equal(kernel.service<{ owner: string }>('http.routes')!.owner, 'host', 'the host is a consumer named host');
  t.same(calls, ['rest', 'meta', 'host']);
  t.equal(kernel.service('auth.session'), undefined, 'the host gets undefined for what nobody provides');
});

t.test('options reach the plugin parsed by its schema (defaults applied)', async (t) => {
  let options: unknown;
  const schema = z.object({ port: z.number().default(3000), host: z.string().default('127.0.0.1') });
  const kernel = kernelOf([entry({ name: 'web', options: schema, register: (ctx) => { options = ctx.options; } }, { options: { port: 8080 } })]);
  await kernel.boot();
  t.same(options, { port: 8080, host: '127.0.0.1' });
});

t.test('kernel services: runtime.info is a frozen copy, hooks.registry and retention.register are read-only views', async (t) => {
  const got: Record<string, unknown> = {};
  const kernel = kernelOf([
    entry({
      name: 'meta', requires: ['runtime.info', 'hooks.registry', 'retention.register'],
      register: (ctx) => {
        got.info = ctx.resolve('runtime.info');
        got.hooks = ctx.resolve('hooks.registry');
        got.retention = ctx.resolve('retention.register');
      },
    }),
  ], { runtimeInfo });
  await kernel.boot();
  t.same(got.info, runtimeInfo);
  t.not(got.info, runtimeInfo, 'a copy, so the host object cannot be changed through it');
  t.ok(Object.isFrozen(got.info));
  t.same(Object.keys(got.hooks as object).sort(), ['all', 'handlers'], 'no add, removePlugin or other writer');
  t.same(Object.keys(got.retention as object), ['contracts'], 'no add or removePlugin');
  t.ok(Object.isFrozen(got.hooks) && Object.isFrozen(got.retention));
});

t.test('the registry holds no multi-cardinality token yet (add scope tests for arrays when one arrives)', async (t) => {
  t.same(capabilityTokens().filter((token) => capabilityRegistry[token].cardinality === 'multi'), []);
});
