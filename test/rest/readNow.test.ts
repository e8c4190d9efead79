import t from 'tap';
import type { DataContext, DataRecord } from '../../capabilities/dataEngine.ts';
import { definePlugin } from '../../kernel/definePlugin.ts';
import { BUILTIN_PLUGINS } from '../../plugins/builtin.ts';
import { onEachDriver } from './restFixtures.ts';

/** An afterFind hook only (no beforeFind): reads of task are still planned, and must still pass through it. */
const shouting = definePlugin({
  name: 'test-shouting',
  version: '1.0.0',
  kernel: '^16.0.0',
  register(ctx) {
    ctx.hook('data.afterFind', (event: { result: { items: DataRecord[] } }) => {
      for (const item of event.result.items) item.subject = String(item.subject).toUpperCase();
    }, { object: 'task' });
  },
});

/**
 * Hooks may still be added while plugins start. The first plugin reads a contact while it starts,
 * which plans the read for callers without a principal; the second adds a beforeFind hook for
 * contact afterwards. Reads after boot must go through that hook, not through the plan.
 */
const early = { hooksWhenPlanned: -1 };
const earlyReader = definePlugin({
  name: 'test-early-reader',
  version: '1.0.0',
  kernel: '^16.0.0',
  requires: ['data.engine', 'runtime.info', 'hooks.registry'],
  register() {},
  async start(ctx) {
    const environmentId = ctx.resolve('runtime.info').defaultEnvironment;
    await ctx.resolve('data.engine').get('contact', '00000000-0000-7000-8000-000000000001', {}, { environmentId, principal: null }).catch(() => undefined);
    early.hooksWhenPlanned = ctx.resolve('hooks.registry').handlers('data.beforeFind', 'contact').length;
  },
});
const lateHook = definePlugin({
  name: 'test-late-hook',
  version: '1.0.0',
  kernel: '^16.0.0',
  requires: ['data.engine'],
  register() {},
  start(ctx) {
    ctx.hook('data.beforeFind', (event: { query: Record<string, unknown> }) => {
      event.query.where = { last_name: 'nobody has this name' };
    }, { object: 'contact' });
  },
});

/**
 * A plain read by id that the engine has planned is answered without waiting on SQLite
 * (DataEngine.getNow, used by GET /data/:object/:id). It must answer exactly what the engine's get
 * answers: the same record and ETag, NOT_FOUND through get, and every find hook still applied.
 */
await onEachDriver(t, 'read-now', async (t, rest) => {
  const engine = rest.engine();
  const nobody: DataContext = { environmentId: rest.environments[0]!, principal: null };
  const sqlite = rest.driver === 'sqlite';

  await t.test('a planned read is answered at once with what get answers', async (t) => {
    const account = await rest.create('account', { name: 'Answered at once' });
    const id = String(account.id);
    const first = await rest.send('GET', `/api/v1/data/account/${id}`);
    t.same({ status: first.status, name: first.body.name, etag: first.headers?.etag }, { status: 200, name: 'Answered at once', etag: '"1"' }, 'the first read plans');
    const now = engine.getNow('account', id, nobody);
    t.same(now, sqlite ? first.body : undefined, sqlite ? 'then getNow answers the same record' : 'PostgreSQL always waits: getNow answers undefined');
    const second = await rest.send('GET', `/api/v1/data/account/${id}`);
    t.same({ status: second.status, body: second.body, etag: second.headers?.etag }, { status: 200, body: first.body, etag: '"1"' }, 'the route answers the same, with its ETag');
    await rest.send('PATCH', `/api/v1/data/account/${id}`, { name: 'Changed', expectedVersion: 1 });
    const changed = await rest.send('GET', `/api/v1/data/account/${id}`);
    t.same({ name: changed.body.name, version: changed.body.version, etag: changed.headers?.etag }, { name: 'Changed', version: 2, etag: '"2"' }, 'a write shows at once');
  });

  await t.test('a missing record is not answered at once: get answers NOT_FOUND', async (t) => {
    await rest.create('account', { name: 'Planned' });
    const missing = '00000000-0000-7000-8000-000000000000';
    t.equal(engine.getNow('account', missing, nobody), undefined, 'getNow: undefined');
    const res = await rest.send('GET', `/api/v1/data/account/${missing}`);
    t.same({ status: res.status, code: res.body.error.code }, { status: 404, code: 'NOT_FOUND' }, 'the route: 404 NOT_FOUND');
    t.equal(engine.getNow('account', 'a\u0000b', nobody), undefined, 'an id no record can have: undefined');
    await t.rejects(engine.get('account', missing, {}, nobody), { code: 'NOT_FOUND' }, "the engine's get: NOT_FOUND");

  });

  await t.test('an afterFind hook applies to every read, planned or not', async (t) => {
    const task = await rest.create('task', { subject: 'quiet' });
    const id = String(task.id);
    for (const round of ['first', 'second', 'third']) {
      const res = await rest.send('GET', `/api/v1/data/task/${id}`);
      t.equal(res.body.subject, 'QUIET', `the ${round} read passes through the hook`);
    }
    t.equal(engine.getNow('task', id, nobody), undefined, 'getNow leaves hooked objects to get');
    t.equal((await engine.get('task', id, {}, nobody)).subject, 'QUIET', "and the engine's get applies the hook");
  });

  await t.test('a beforeFind hook added after a read was planned applies to the reads after it', async (t) => {
    t.equal(early.hooksWhenPlanned, 0, 'the contact read was planned before any beforeFind hook existed');
    const contact = await rest.create('contact', { last_name: 'Planned early', email: 'early@example.com' });
    t.equal(engine.getNow('contact', String(contact.id), nobody), undefined, 'getNow leaves the read to get');
    t.equal((await rest.send('GET', `/api/v1/data/contact/${String(contact.id)}`)).status, 404, 'the hook hides the contact from the route');
  });
}, {
  builtins: [
    ...BUILTIN_PLUGINS,
    { manifest: shouting, enabledByDefault: true },
    { manifest: earlyReader, enabledByDefault: true },
    { manifest: lateHook, enabledByDefault: true },
  ],
});
