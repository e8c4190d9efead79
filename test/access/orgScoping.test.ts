import t from 'tap';
import type { Principal } from '../../capabilities/authSession.ts';
import type { DataContext } from '../../capabilities/dataEngine.ts';
import { definePlugin } from '../../kernel/definePlugin.ts';
import { BUILTIN_PLUGINS } from '../../plugins/builtin.ts';
import { onEachDriver } from '../rest/restFixtures.ts';

/** What insert hooks saw of the caller. */
const seen: Array<{ user: unknown; session: unknown }> = [];
const hookProbe = definePlugin({
  name: 'org-hook-probe',
  version: '1.0.0',
  kernel: '^16.0.0',
  register(ctx) {
    ctx.hook('data.beforeInsert', (event) => {
      seen.push({ user: event.ctx.user?.organizationId, session: event.ctx.session?.organizationId });
    }, { object: 'project' });
  },
});

/**
 * A second contributed scope that reads the session the caller passes (the engine fills it from
 * the principal when the caller passes none), to show that a contributed scope is the call's.
 */
const sessionScopeProbe = definePlugin({
  name: 'session-scope-probe',
  version: '1.0.0',
  kernel: '^16.0.0',
  requires: ['data.scopes'],
  register(ctx) {
    ctx.resolve('data.scopes').add((object, call) => (object.name === 'project' && call.session?.organizationId ? { organization_id: call.session.organizationId } : null));
    // memo has no organization: only this scope applies to it, and only to sessions of org-b.
    ctx.resolve('data.scopes').add((object, call) => (object.name === 'memo' && call.session?.organizationId === 'org-b' ? { name: 'no memo has this name' } : null));
  },
});

const principal = (userId: string, organizationId: string | null, isAdmin = false): Principal =>
  ({ kind: 'user', userId, environmentId: '', organizationId, isAdmin, positions: [], permissionSets: [], permissions: [] });

t.test('org scoping', async (t) => {
  await onEachDriver(t, 'org', async (t, rest) => {
    const engine = rest.engine();
    const env = rest.environments[0]!;
    const as = (p: Principal): DataContext => ({ environmentId: env, principal: { ...p, environmentId: env } });
    const a = as(principal('u-a', 'org-a'));
    const b = as(principal('u-b', 'org-b'));
    const adminA = as(principal('admin-a', 'org-a', true));
    const system: DataContext = { environmentId: env, principal: null, system: true };

    const pa = await engine.create('project', { name: 'PROJECT-A' }, a);
    t.equal(pa.organization_id, 'org-a', 'inserts are stamped from the session');
    t.same(seen.at(-1), { user: 'org-a', session: 'org-a' }, 'hooks see ctx.user.organizationId and ctx.session.organizationId');
    const pb = await engine.create('project', { name: 'PROJECT-B', organization_id: 'org-b' }, b);
    t.equal(pb.organization_id, 'org-b', 'sending one\'s own organization is fine');
    await t.rejects(engine.create('ticket', { title: 'forged', organization_id: 'org-b' }, a), { code: 'ORGANIZATION_MISMATCH' }, 'a forged organization is refused');
    // A lookup into another organization names a record the caller cannot read: refused as if missing.
    const refused = (id: string) => engine.create('ticket', { title: 'TICKET-B', project: id }, b).then(() => null, (error: { status: number; code: string; message: string; details: unknown }) => ({ status: error.status, code: error.code, message: error.message, details: error.details }));
    const hidden = JSON.stringify(await refused(String(pa.id))).split(String(pa.id)).join('<id>');
    const missing = JSON.stringify(await refused('01a00000-0000-7000-8000-000000000000')).split('01a00000-0000-7000-8000-000000000000').join('<id>');
    t.match(JSON.parse(hidden), { status: 400, code: 'VALIDATION_ERROR', details: { errors: [{ path: 'project', message: "no project record has id '<id>'" }] } }, 'a lookup into another organization is refused');
    t.equal(hidden, missing, 'with the very error of a missing id');
    const tb = await engine.create('ticket', { title: 'TICKET-B', organization_id: 'org-b', project: pa.id }, system);
    // Written in a batch (ticket's insert hooks are all batched): stamped, forged and hidden rows alike.
    const many = await engine.createMany('ticket', [{ title: 'MANY-1' }, { title: 'MANY-forged', organization_id: 'org-a' }, { title: 'MANY-hidden', project: pa.id }], b);
    t.same(many.map((o) => o.record?.organization_id ?? (o.error as { code: string }).code), ['org-b', 'ORGANIZATION_MISMATCH', 'VALIDATION_ERROR'], 'a batch stamps, refuses a forged organization and a lookup into another one');
    t.equal(JSON.stringify((many[2]!.error as { details: unknown }).details).split(String(pa.id)).join('<id>'), JSON.stringify(JSON.parse(missing).details), 'the hidden lookup gets the error of a missing id');
    await engine.delete('ticket', String(many[0]!.record!.id), {}, system);

    const listA = await engine.query('project', {}, a);
    t.same({ names: listA.items.map((p) => p.name), total: listA.total }, { names: ['PROJECT-A'], total: 1 }, 'a query sees its organization only');
    // The same user and access profile with a session of another organization passed by the
    // caller: reads are not served from a plan made for the first call (plans are kept per access
    // profile; a contributed scope belongs to the call).
    const aInB: DataContext = { ...a, user: { id: 'u-a', organizationId: 'org-b', positions: [] }, session: { organizationId: 'org-b' } };
    t.equal((await engine.get('project', String(pa.id), {}, a)).name, 'PROJECT-A', 'a read by id as the caller');
    await t.rejects(engine.get('project', String(pa.id), {}, aInB), { code: 'NOT_FOUND' }, 'the same read with the other session finds nothing');
    t.same((await engine.query('project', {}, aInB)).items, [], 'the same list with the other session finds nothing');
    // A read with no contributed scope plans memo for a's profile; the same profile in a call that
    // carries a scope must not be answered from that plan (the engine's get, and getNow).
    const memo = await engine.create('memo', { name: 'MEMO' }, system);
    t.equal((await engine.get('memo', String(memo.id), {}, a)).name, 'MEMO', 'a reads the memo: no scope applies');
    // Only a SQLite file has a reader that answers without waiting.
    t.equal(engine.getNow('memo', String(memo.id), a)?.name, rest.driver === 'sqlite' ? 'MEMO' : undefined, 'and the same read is answered at once on SQLite');
    await t.rejects(engine.get('memo', String(memo.id), {}, aInB), { code: 'NOT_FOUND' }, 'the same profile with the scoped session finds nothing');
    t.equal(engine.getNow('memo', String(memo.id), aInB), undefined, 'nor at once');
    // Lists: a's list of memo (no scope applies) may be planned; the same profile with the scoped
    // session must not be answered from that plan, nor a's next list from the scoped one.
    const memos = async (ctx: DataContext) => {
      const page = await engine.query('memo', { orderBy: 'name', limit: 10 }, ctx);
      return { names: page.items.map((m) => m.name), total: page.total };
    };
    t.same(await memos(a), { names: ['MEMO'], total: 1 }, 'a lists the memo');
    t.same(await memos(a), { names: ['MEMO'], total: 1 }, 'twice');
    t.same(await memos(aInB), { names: [], total: 0 }, 'the same list with the scoped session finds nothing');
    t.same(await memos(a), { names: ['MEMO'], total: 1 }, 'and a lists it again');
    // A list of memo joined to project: no scope applies to memo for a session of org-c either, but
    // project's scope is the session's: a plan made for a's session must not answer it.
    await engine.create('memo', { name: 'MEMO-P', project: pa.id }, system);
    const joinedMemo = async (ctx: DataContext) => (await engine.query('memo', { where: { name: 'MEMO-P' }, joins: [{ type: 'left', object: 'project', as: 'p', on: 'project = p.id' }], fields: ['name', 'p.name'] }, ctx)).items.map((r) => [r.name, (r.p as { name?: string } | null)?.name ?? null]);
    const aInC: DataContext = { ...a, user: { id: 'u-a', organizationId: 'org-c', positions: [] }, session: { organizationId: 'org-c' } };
    t.same(await joinedMemo(a), [['MEMO-P', 'PROJECT-A']], 'a joins its project');
    t.same(await joinedMemo(a), [['MEMO-P', 'PROJECT-A']], 'twice');
    t.same(await joinedMemo(aInC), [['MEMO-P', null]], 'the same profile with another session joins nothing');
    const countA = await engine.query('project', { aggregations: [{ function: 'count', alias: 'n' }] }, a);
    t.equal(countA.items[0]!.n, 1, 'counts stay inside the organization');
    const expanded = await engine.get('ticket', String(tb.id), { expand: ['project'] }, b);
    t.equal(expanded.project, null, 'expanding into another organization finds nothing');
    const joined = await engine.query('ticket', { joins: [{ type: 'left', object: 'project', as: 'p', on: 'project = p.id' }], fields: ['title', 'p.name'] }, b);
    t.same(joined.items.map((r) => r.p), [null], 'joining into another organization finds nothing');
    t.equal((await engine.query('ticket', {}, a)).total, 0, 'the other organization\'s tickets are invisible');

    await t.rejects(engine.get('project', String(pb.id), {}, a), { code: 'NOT_FOUND' });
    await t.rejects(engine.update('project', String(pb.id), { name: 'x' }, {}, a), { code: 'NOT_FOUND' }, 'another organization\'s record is not found on update');
    await t.rejects(engine.delete('project', String(pb.id), {}, adminA), { code: 'NOT_FOUND' }, 'even an admin of another organization');
    await t.rejects(engine.update('project', String(pa.id), { organization_id: 'org-b' }, {}, a), { code: 'ORGANIZATION_MISMATCH' }, 'moving a record to another organization is refused');
    const kept = await engine.update('project', String(pa.id), { name: 'PROJECT-A2', organization_id: 'org-a' }, {}, a);
    t.equal(kept.name, 'PROJECT-A2');

    const all = await engine.query('project', { orderBy: 'name' }, system);
    t.same(all.items.map((p) => p.name), ['PROJECT-A2', 'PROJECT-B'], 'engine work is not scoped');
  }, {
    apps: ['test/access/fixtures/org-app'],
    config: { plugins: { 'org-scoping': { enabled: true } } },
    builtins: [...BUILTIN_PLUGINS, { manifest: hookProbe, enabledByDefault: true }, { manifest: sessionScopeProbe, enabledByDefault: true }],
  });
});
