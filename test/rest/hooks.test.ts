/** The 8 data hooks seen through HTTP: order, payloads, changes they make, and the transaction they share. */
import t from 'tap';
import type { DataContext, DataEngine, DataRecord } from '../../capabilities/dataEngine.ts';
import { codedError, definePlugin } from '../../kernel/index.ts';
import { BUILTIN_PLUGINS } from '../../plugins/builtin.ts';
import { onEachDriver, type Rest } from './restFixtures.ts';

const HOOKS = ['beforeFind', 'afterFind', 'beforeInsert', 'afterInsert', 'beforeUpdate', 'afterUpdate', 'beforeDelete', 'afterDelete'] as const;
type Hook = (typeof HOOKS)[number];

interface HookEvent {
  object: string;
  ctx: DataContext;
  engine?: DataEngine;
  record?: DataRecord;
  previous?: DataRecord;
  patch?: DataRecord;
  query?: Record<string, unknown>;
  result?: { items: DataRecord[] };
}

/** What the handlers saw, and what each test wants them to do. */
const seen: Array<{ hook: Hook; event: HookEvent }> = [];
const behaviour: Partial<Record<Hook, (event: HookEvent) => unknown>> = {};

const recorder = definePlugin({
  name: 'test-hooks',
  version: '1.0.0',
  kernel: '^16.0.0',
  register(ctx) {
    for (const hook of HOOKS) {
      ctx.hook(`data.${hook}`, async (event: HookEvent) => {
        seen.push({ hook, event: structuredClone({ ...event, engine: undefined }) });
        await behaviour[hook]?.(event);
      }, { object: 'task' });
    }
  },
});

const builtins = [...BUILTIN_PLUGINS, { manifest: recorder, enabledByDefault: true }];

/** Runs one request with the given handlers, returning the reply and the hooks that fired. */
async function withHooks(handlers: Partial<Record<Hook, (event: HookEvent) => unknown>>, run: () => ReturnType<Rest['send']>) {
  Object.assign(behaviour, handlers);
  seen.length = 0;
  try {
    const reply = await run();
    return { reply, fired: seen.map((s) => s.hook), events: [...seen] };
  } finally {
    for (const hook of HOOKS) delete behaviour[hook];
  }
}

const tasks = '/api/v1/data/task';

await onEachDriver(t, 'rest-hooks', async (t, rest) => {
  const env = rest.environments[0];

  await t.test('each operation fires its own hooks, in order, with their payloads', async (t) => {
    const create = await withHooks({}, () => rest.send('POST', tasks, { subject: 'ordered' }));
    t.equal(create.reply.status, 201, 'created');
    t.same(create.fired, ['beforeInsert', 'afterInsert'], 'create: beforeInsert, afterInsert (its read-back fires no find hooks)');
    t.same(create.events[0]?.event.record, { subject: 'ordered', status: 'open', priority: 'normal', reminder: false }, 'beforeInsert: the checked input with defaults');
    t.hasStrict(create.events[1]?.event.record, { id: create.reply.body.id, version: 1, subject: 'ordered' }, 'afterInsert: the stored record');
    t.equal(create.events[1]?.event.ctx.environmentId, env, 'the context names the environment');
    const id = String(create.reply.body.id);

    const get = await withHooks({}, () => rest.send('GET', `${tasks}/${id}`));
    t.same(get.fired, ['beforeFind', 'afterFind'], 'get: beforeFind, afterFind');
    t.hasStrict(get.events[0]?.event.query, { where: { id: { $eq: id } } }, 'beforeFind sees the query by id');

    const list = await withHooks({}, () => rest.send('GET', `${tasks}?orderBy=-created_at&limit=5`));
    t.same(list.fired, ['beforeFind', 'afterFind'], 'list: beforeFind, afterFind');
    t.hasStrict(list.events[0]?.event.query, { orderBy: '-created_at', limit: '5' }, 'beforeFind sees the query as sent');
    t.equal(list.events[1]?.event.result?.items.length, 1, 'afterFind sees the result');

    const update = await withHooks({}, () => rest.send('PATCH', `${tasks}/${id}`, { status: 'in_progress', expectedVersion: 1 }));
    t.equal(update.reply.status, 200, 'updated');
    t.same(update.fired, ['beforeUpdate', 'afterUpdate'], 'update: beforeUpdate, afterUpdate');
    t.same(update.events[0]?.event.patch, { status: 'in_progress' }, 'beforeUpdate: the patch, without expectedVersion');
    t.equal(update.events[0]?.event.previous?.version, 1, 'beforeUpdate: the previous record');
    t.equal(update.events[1]?.event.record?.version, 2, 'afterUpdate: the stored record');

    const del = await withHooks({}, () => rest.send('DELETE', `${tasks}/${id}`));
    t.equal(del.reply.status, 204, 'deleted');
    t.same(del.fired, ['beforeDelete', 'afterDelete'], 'delete: beforeDelete, afterDelete');
    t.equal(del.events[1]?.event.previous?.id, id, 'afterDelete: the deleted record');

    const other = await withHooks({}, () => rest.send('POST', '/api/v1/data/account', { name: 'No hooks here' }));
    t.same([other.reply.status, other.fired], [201, []], 'handlers limited to task do not fire for account');
  });

  await t.test('find hooks are skipped only for engine-internal reads (findHooks: false in a system context)', async (t) => {
    const system: DataContext = { environmentId: env!, principal: null, system: true };
    const internal = await withHooks({}, async () => ({ status: 200, body: await rest.engine().query('task', { limit: 1 }, system, { findHooks: false }), headers: {} }));
    t.same(internal.fired, [], 'a system read asking for no find hooks fires none');
    const caller: DataContext = { environmentId: env!, principal: null };
    const read = await withHooks({}, async () => ({ status: 200, body: await rest.engine().query('task', { limit: 1 }, caller, { findHooks: false }).catch((e: Error) => ({ error: e.message })), headers: {} }));
    t.same(read.fired.slice(0, 1), ['beforeFind'], 'a caller asking for no find hooks still gets them');
  });

  await t.test('beforeInsert and beforeUpdate can change what is stored; their changes are checked too', async (t) => {
    const stamp = (e: HookEvent) => void (e.record!.description = `stamped ${String(e.record!.subject)}`);
    const { reply } = await withHooks({ beforeInsert: stamp }, () => rest.send('POST', tasks, { subject: 'changed' }));
    t.equal(reply.body.description, 'stamped changed', 'the response shows the change');
    t.equal((await rest.send('GET', `${tasks}/${String(reply.body.id)}`)).body.description, 'stamped changed', 'stored');

    const upper = (e: HookEvent) => void (e.patch!.subject = String(e.patch!.subject).toUpperCase());
    const patched = await withHooks({ beforeUpdate: upper }, () => rest.send('PATCH', `${tasks}/${String(reply.body.id)}`, { subject: 'loud' }));
    t.equal(patched.reply.body.subject, 'LOUD', 'beforeUpdate changed the patch');

    const before = await rest.snapshot('task');
    const bad = await withHooks({ beforeInsert: (e) => void (e.record!.status = 'bogus') }, () => rest.send('POST', tasks, { subject: 'x' }));
    t.equal(bad.reply.status, 400, 'a hook writing an invalid value: 400');
    t.match(bad.reply.body.error.details.errors, [{ path: 'status' }], 'names the field');
    t.same(await rest.snapshot('task'), before, 'nothing stored');
  });

  const failures: Array<[string, () => never, number, string, string[]]> = [
    ['a plain Error', () => { throw new Error('hook exploded: secret-token-123'); }, 500, 'INTERNAL', ['secret-token-123', 'hook exploded']],
    ['a coded error', () => { throw codedError('CONFLICT', { summary: 'Tasks are frozen today.' }); }, 409, 'CONFLICT', []],
  ];
  for (const [name, thrower, status, code, absent] of failures) {
    await t.test(`afterInsert throwing ${name} rolls the insert back`, async (t) => {
      const before = await rest.snapshot('task');
      const { reply, fired } = await withHooks({ afterInsert: thrower }, () => rest.send('POST', tasks, { subject: `rolled back ${code}` }));
      t.equal(reply.status, status, `status ${status}`);
      t.same(Object.keys(reply.body), ['error'], 'the error envelope');
      t.equal(reply.body.error.code, code, code);
      for (const text of absent) t.notOk(JSON.stringify(reply.body).includes(text), `does not leak ${text}`);
      t.same(fired, ['beforeInsert', 'afterInsert'], 'the insert reached afterInsert');
      t.same(await rest.snapshot('task'), before, 'the task table is unchanged');
      const search = await rest.send('GET', `${tasks}?where=${encodeURIComponent(JSON.stringify({ subject: `rolled back ${code}` }))}`);
      t.same(search.body.items, [], 'the record is absent');
    });
  }

  await t.test('beforeFind can restrict reads; afterFind can transform them', async (t) => {
    const open = await rest.create('task', { subject: 'visible' });
    const done = await rest.create('task', { subject: 'hidden', status: 'done' });
    const onlyOpen = (e: HookEvent) => {
      e.query!.where = e.query!.where ? { $and: [typeof e.query!.where === 'string' ? JSON.parse(e.query!.where) : e.query!.where, { status: 'open' }] } : { status: 'open' };
    };
    const list = await withHooks({ beforeFind: onlyOpen }, () => rest.send('GET', `${tasks}?limit=200`));
    const ids = list.reply.body.items.map((r: DataRecord) => r.id);
    t.ok(ids.includes(open.id), 'the open task is listed');
    t.notOk(ids.includes(done.id), 'the done task is not');
    t.ok(list.reply.body.items.every((r: DataRecord) => r.status === 'open'), 'only open tasks');
    t.equal(list.reply.body.total, list.reply.body.items.length, 'total counts only what the hook lets through');
    const hidden = await withHooks({ beforeFind: onlyOpen }, () => rest.send('GET', `${tasks}/${String(done.id)}`));
    t.equal(hidden.reply.status, 404, 'get by id of a hidden record: 404');

    const closed = await withHooks({ beforeFind: onlyOpen }, () => rest.send('PATCH', `${tasks}/${String(open.id)}`, { status: 'done' }));
    t.equal(closed.reply.status, 200, 'a write may move a record out of what reads show');
    t.equal(closed.reply.body.status, 'done', 'and answers with the stored record');
    const created = await withHooks({ beforeFind: onlyOpen }, () => rest.send('POST', tasks, { subject: 'born done', status: 'done' }));
    t.equal(created.reply.status, 201, 'the same for a create');

    const shout = (e: HookEvent) => {
      for (const item of e.result!.items) item.subject = String(item.subject).toUpperCase();
    };
    const got = await withHooks({ afterFind: shout }, () => rest.send('GET', `${tasks}/${String(done.id)}`));
    t.equal(got.reply.body.subject, 'HIDDEN', 'afterFind transformed the record');
    t.equal((await rest.send('GET', `${tasks}/${String(done.id)}`)).body.subject, 'hidden', 'the stored value is unchanged');
  });

  await t.test('a hook writing through event.engine shares the transaction', async (t) => {
    const audit = (e: HookEvent) => e.engine!.create('account', { name: `audit of ${String(e.record?.subject ?? e.previous?.subject)}` }, e.ctx);
    const ok = await withHooks({ afterInsert: audit }, () => rest.send('POST', tasks, { subject: 'audited' }));
    t.equal(ok.reply.status, 201, 'task created');
    const accounts = await rest.send('GET', `/api/v1/data/account?where=${encodeURIComponent(JSON.stringify({ name: 'audit of audited' }))}`);
    t.equal(accounts.body.total, 1, 'the hook created its account');

    const [tasksBefore, accountsBefore] = [await rest.snapshot('task'), await rest.snapshot('account')];
    const fail = await withHooks({
      afterInsert: async (e) => {
        await audit(e);
        throw codedError('CONFLICT', { summary: 'refused after the audit was written' });
      },
    }, () => rest.send('POST', tasks, { subject: 'doomed' }));
    t.equal(fail.reply.status, 409, 'the insert fails');
    t.same(await rest.snapshot('task'), tasksBefore, 'no task');
    t.same(await rest.snapshot('account'), accountsBefore, "and the hook's account is gone with it");

    const victim = await rest.create('task', { subject: 'keep me' });
    const del = await withHooks({
      beforeDelete: audit,
      afterDelete: () => { throw codedError('CONFLICT', { summary: 'deletes are off' }); },
    }, () => rest.send('DELETE', `${tasks}/${String(victim.id)}`));
    t.equal(del.reply.status, 409, 'the delete fails in afterDelete');
    t.equal((await rest.send('GET', `${tasks}/${String(victim.id)}`)).status, 200, 'the task is still there');
    t.same(await rest.snapshot('account'), accountsBefore, 'the account written in beforeDelete is gone');
  });
}, { builtins });
