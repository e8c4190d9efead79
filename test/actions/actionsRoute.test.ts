/** POST /api/v1/actions/<name> on both drivers: input, permission keys, hidden records, update, create, handlers, run() and discovery. */
import t from 'tap';
import type { ActionsRegistry } from '../../capabilities/actionsRegistry.ts';
import type { Principal } from '../../capabilities/authSession.ts';
import { definePlugin } from '../../kernel/definePlugin.ts';
import { addUser, sendAs } from '../access/accessWorld.ts';
import { eachBackend, signIn } from '../auth/authHarness.ts';

const DESK = 'test/actions/fixtures/desk';

/** A third-party plugin implementing the handler action ping_ticket. */
const pinger = definePlugin({
  name: 'pinger',
  version: '1.0.0',
  kernel: '^16.0.0',
  requires: ['actions.registry'],
  register(ctx) {
    ctx.resolve('actions.registry').handle('ping_ticket', ({ input, record, data }) => ({
      pinged: record?.subject, loud: input.loud ?? false, by: data.principal?.userId,
    }));
    ctx.resolve('actions.registry').handle('pin_bulletin', ({ record }) => ({ pinned: record?.title }));
  },
});

t.test('actions over HTTP', async (t) => {
  await eachBackend(t, ['actions'], async (t, site) => {
    const rt = await site.boot({ config: { apps: [DESK] }, plugins: [pinger] });
    const admin = await signIn(rt);
    const closer = await addUser(rt, admin.token, 'closer');
    const plain = await addUser(rt, admin.token, 'plain');
    const as = (user: { token: string }, method: string, url: string, payload?: unknown) => sendAs(rt, user.token, method, url, payload);

    const mine = (await as(closer, 'POST', '/api/v1/data/ticket', { subject: 'Printer', effort: 0 })).body;
    const hidden = (await as(plain, 'POST', '/api/v1/data/ticket', { subject: 'Plain secret' })).body;
    // Closers hold the key, and may read but not edit priority (a field named by a permission set is closed to others).
    const set = await as(admin, 'POST', '/api/v1/data/sys_permission_set', { name: 'ticket_closers', permissions: ['ticket:close'], fields: { 'ticket.priority': { read: true } } });
    t.equal(set.status, 201);
    t.equal((await as(admin, 'POST', '/api/v1/data/sys_user_permission_set', { user_id: closer.id, permission_set: set.body.id })).status, 201);
    t.equal(mine.version, 1);

    await t.test('bad input is 400 VALIDATION_ERROR with one detail per field, unknown keys refused', async (t) => {
      const res = await as(closer, 'POST', '/api/v1/actions/close_ticket', { recordId: mine.id, note: 'x'.repeat(21), effort: 9, bogus: true });
      t.equal(res.status, 400);
      t.equal(res.body.error.code, 'VALIDATION_ERROR');
      const paths = res.body.error.details.errors.map((e: { path: string }) => e.path).sort();
      t.same(paths, ['body/bogus', 'body/effort', 'body/note']);
      const missing = await as(closer, 'POST', '/api/v1/actions/close_ticket', { recordId: mine.id });
      t.equal(missing.status, 400);
      t.match(missing.body.error.message, /note/);
      t.equal((await as(closer, 'GET', `/api/v1/data/ticket/${mine.id}`)).body.status, 'open', 'nothing was written');
    });

    await t.test('without the permission key: 403 PERMISSION_DENIED naming the key', async (t) => {
      const res = await as(plain, 'POST', '/api/v1/actions/close_ticket', { recordId: hidden.id, note: 'done' });
      t.equal(res.status, 403);
      t.equal(res.body.error.code, 'PERMISSION_DENIED');
      t.equal(res.body.error.details.permission, 'ticket:close');
      t.equal((await as(plain, 'GET', `/api/v1/data/ticket/${hidden.id}`)).body.status, 'open');
      // A percent-encoded spelling of the name reaches the same route and the same check.
      const encoded = await as(plain, 'POST', '/api/v1/actions/close%5Fticket', { recordId: hidden.id, note: 'done' });
      t.equal(encoded.status, 403);
      t.equal(encoded.body.error.details.permission, 'ticket:close');
    });

    await t.test('a record the caller cannot see is 404, and stays unchanged', async (t) => {
      const res = await as(closer, 'POST', '/api/v1/actions/close_ticket', { recordId: hidden.id, note: 'mine now' });
      t.equal(res.status, 404);
      t.equal(res.body.error.code, 'NOT_FOUND');
      t.notMatch(JSON.stringify(res.body), /Plain secret/);
      const after = (await as(plain, 'GET', `/api/v1/data/ticket/${hidden.id}`)).body;
      t.same([after.status, after.version], ['open', 1]);
      const missing = await as(closer, 'POST', '/api/v1/actions/close_ticket', { recordId: 'no-such-id', note: 'x' });
      t.equal(missing.status, 404);
    });

    await t.test('run.type update changes the record through the engine and bumps its version', async (t) => {
      const res = await as(closer, 'POST', '/api/v1/actions/close_ticket', { recordId: mine.id, note: 'toner' });
      t.equal(res.status, 200);
      t.equal(res.body.result.status, 'closed');
      t.equal(res.body.result.note, 'Printer: toner');
      t.equal(res.body.result.effort, 1);
      t.equal(res.body.result.version, 2);
      t.ok(Date.parse(res.body.result.closed_at) > Date.now() - 60_000);
      const stored = (await as(closer, 'GET', `/api/v1/data/ticket/${mine.id}`)).body;
      t.same([stored.status, stored.note, stored.version], ['closed', 'Printer: toner', 2]);
      const again = await as(closer, 'POST', '/api/v1/actions/close_ticket', { recordId: mine.id, note: 'twice', effort: 4 });
      t.same([again.body.result.version, again.body.result.effort], [3, 4]);
    });

    await t.test('field-level security applies to what an update writes', async (t) => {
      const before = (await as(closer, 'GET', `/api/v1/data/ticket/${mine.id}`)).body;
      const res = await as(closer, 'POST', '/api/v1/actions/escalate_ticket', { recordId: mine.id });
      t.equal(res.status, 403);
      t.equal(res.body.error.code, 'PERMISSION_DENIED');
      t.match(res.body.error.details, { field: 'priority' });
      const after = (await as(closer, 'GET', `/api/v1/data/ticket/${mine.id}`)).body;
      t.same([after.priority, after.version], [undefined, before.version]);
      const byAdmin = await as(admin, 'POST', '/api/v1/actions/escalate_ticket', { recordId: mine.id });
      t.same([byAdmin.status, byAdmin.body.result.priority, byAdmin.body.result.version], [200, 'high', before.version + 1]);
    });

    await t.test('run.type create makes a record owned by the caller', async (t) => {
      const res = await as(plain, 'POST', '/api/v1/actions/open_ticket', { subject: 'Wifi' });
      t.equal(res.status, 200);
      t.equal(res.body.result.subject, '[web] Wifi');
      t.equal(res.body.result.owner_id, plain.id);
      t.equal((await as(plain, 'GET', `/api/v1/data/ticket/${res.body.result.id}`)).body.subject, '[web] Wifi');
      const refused = await as(plain, 'POST', '/api/v1/actions/open_ticket', { subject: 'Wifi', recordId: mine.id });
      t.equal(refused.status, 400, 'recordId is not a key of an action without object');
    });

    await t.test("run.type handler runs the plugin's function as the caller", async (t) => {
      const res = await as(closer, 'POST', '/api/v1/actions/ping_ticket', { recordId: mine.id, loud: true });
      t.equal(res.status, 200);
      t.same(res.body.result, { pinged: 'Printer', loud: true, by: closer.id });
      const hiddenPing = await as(closer, 'POST', '/api/v1/actions/ping_ticket', { recordId: hidden.id });
      t.equal(hiddenPing.status, 404);
    });

    await t.test('a record the caller may read but not edit: every run type is refused and nothing changes', async (t) => {
      const board = (await as(plain, 'POST', '/api/v1/data/bulletin', { title: 'Lunch', pinned: true })).body;
      t.equal((await as(closer, 'GET', `/api/v1/data/bulletin/${board.id}`)).status, 200, 'readable by others (public_read)');
      for (const action of ['pin_bulletin', 'unpin_bulletin', 'copy_bulletin']) {
        const res = await as(closer, 'POST', `/api/v1/actions/${action}`, { recordId: board.id });
        t.equal(res.status, 403, action);
        t.equal(res.body.error.code, 'PERMISSION_DENIED', action);
        t.equal(res.body.error.details.permission, 'bulletin:edit', action);
      }
      const after = (await as(plain, 'GET', `/api/v1/data/bulletin/${board.id}`)).body;
      t.same([after.pinned, after.version], [true, 1]);
      t.equal((await as(plain, 'GET', '/api/v1/data/bulletin')).body.items.length, 1, 'no copy was created');
      t.same((await as(plain, 'POST', '/api/v1/actions/pin_bulletin', { recordId: board.id })).body, { result: { pinned: 'Lunch' } });
      const copied = await as(plain, 'POST', '/api/v1/actions/copy_bulletin', { recordId: board.id });
      t.equal(copied.body.result.title, 'Copy of Lunch');
    });

    await t.test('every input type: the route and run() accept and refuse the same bodies, field by field', async (t) => {
      const good = { recordId: mine.id, loud: false, when: '2026-02-28', at: '2026-02-28T10:00:00Z', mail: 'a@example.com', site: 'https://example.com/x', tags: ['a', 'b'], level: 'high', score: 0.5, related: hidden.id, extra: { any: [1] } };
      const ok = await as(closer, 'POST', '/api/v1/actions/ping_ticket', good);
      t.equal(ok.status, 200);
      const bad = { recordId: mine.id, loud: 'yes', when: '2026-02-30', at: 'yesterday', mail: 'nobody', site: 'not a url', tags: ['a', 'c'], level: 'mid', score: 2, related: '' };
      const res = await as(closer, 'POST', '/api/v1/actions/ping_ticket', bad);
      t.equal(res.status, 400);
      const httpPaths = [...new Set(res.body.error.details.errors.map((e: { path: string }) => e.path))].sort();
      t.same(httpPaths, ['at', 'level', 'loud', 'mail', 'related', 'score', 'site', 'tags', 'when'].map((f) => `body/${f}`.replace('body/tags', 'body/tags/1')).sort());
      const registry = rt.runtime.kernel.service<ActionsRegistry>('actions.registry')!;
      const environmentId = site.ids[0]!;
      const caller: Principal = { kind: 'user', userId: closer.id, environmentId, isAdmin: false, positions: [], permissionSets: [], permissions: [] };
      const direct = await registry.run('ping_ticket', bad, caller, { environmentId }).then(() => null, (e: { code: string; details: { errors: Array<{ path: string }> } }) => e);
      t.equal(direct?.code, 'VALIDATION_ERROR');
      t.same(direct?.details.errors.map((e) => e.path).sort(), ['at', 'level', 'loud', 'mail', 'related', 'score', 'site', 'tags', 'when'].map((f) => `body/${f}`).sort());
      t.equal(((await registry.run('ping_ticket', good, caller, { environmentId })).result as { pinged: string }).pinged, 'Printer');
    });

    await t.test('an unknown action is 404 NOT_FOUND', async (t) => {
      const res = await as(closer, 'POST', '/api/v1/actions/no_such_action', {});
      t.equal(res.status, 404);
      t.equal(res.body.error.code, 'NOT_FOUND');
      t.match(res.body.error.message, /no_such_action/);
    });

    await t.test('actions.registry run() applies the same checks as the route', async (t) => {
      const registry = rt.runtime.kernel.service<ActionsRegistry>('actions.registry')!;
      t.same(registry.list().map((a) => a.name), ['close_ticket', 'copy_bulletin', 'escalate_ticket', 'open_ticket', 'pin_bulletin', 'ping_ticket', 'unpin_bulletin']);
      const environmentId = site.ids[0]!;
      const principal = (id: string, permissions: string[]): Principal => ({ kind: 'user', userId: id, environmentId, isAdmin: false, positions: [], permissionSets: [], permissions });
      await t.rejects(registry.run('close_ticket', { recordId: hidden.id, note: 'x' }, principal(plain.id, []), { environmentId }), { code: 'PERMISSION_DENIED', details: { permission: 'ticket:close' } });
      await t.rejects(registry.run('close_ticket', { recordId: mine.id, note: 'x', extra: 1 }, principal(closer.id, ['ticket:close']), { environmentId }), { code: 'VALIDATION_ERROR', details: { errors: [{ path: 'body/extra' }] } });
      await t.rejects(registry.run('close_ticket', { recordId: hidden.id, note: 'x' }, principal(closer.id, ['ticket:close']), { environmentId }), { code: 'NOT_FOUND' });
      await t.rejects(registry.run('close_ticket', { recordId: mine.id, note: 'x' }, null, { environmentId }), { code: 'UNAUTHENTICATED' });
      const ran = await registry.run('close_ticket', { recordId: mine.id, note: 'tool' }, principal(closer.id, ['ticket:close']), { environmentId });
      t.equal((ran.result as { note: string }).note, 'Printer: tool');
    });

    await t.test('GET /meta/action lists the actions, /meta/action/:name shows one', async (t) => {
      const list = await as(closer, 'GET', '/api/v1/meta/action');
      t.equal(list.status, 200);
      const items = list.body.items as Array<{ name: string }>;
      t.same(items.map((a) => a.name), ['close_ticket', 'copy_bulletin', 'escalate_ticket', 'open_ticket', 'pin_bulletin', 'ping_ticket', 'unpin_bulletin']);
      const one = await as(closer, 'GET', '/api/v1/meta/action/close_ticket');
      t.equal(one.status, 200);
      t.match(one.body, { name: 'close_ticket', object: 'ticket', permission: 'ticket:close', package: 'desk', route: 'POST /api/v1/actions/close_ticket', run: { type: 'update', set: { status: "'closed'" } } });
      t.notOk('assignments' in one.body);
      const refs = await as(closer, 'GET', '/api/v1/meta/object/ticket/references');
      t.same(refs.body.items.filter((r: { type: string }) => r.type === 'action').map((r: { name: string; path: string }) => `${r.name} ${r.path}`), ['close_ticket object', 'escalate_ticket object', 'open_ticket run.object', 'ping_ticket object', 'ping_ticket input.related.reference']);
      t.equal((await as(closer, 'GET', '/api/v1/meta/action/nope')).status, 404);
    });

    await t.test('the OpenAPI document has each action route with its body schema', async (t) => {
      const doc = (await as(admin, 'GET', '/api/v1/openapi.json')).body;
      const op = doc.paths['/actions/close_ticket'].post;
      const schema = op.requestBody.content['application/json'].schema;
      t.same(Object.keys(schema.properties).sort(), ['effort', 'note', 'recordId']);
      t.same(schema.required.sort(), ['note', 'recordId']);
      t.equal(schema.additionalProperties, false);
      t.equal(schema.properties.note.maxLength, 20);
      t.equal(op['x-permission'], 'ticket:close');
    });
  });
});
