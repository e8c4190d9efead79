/**
 * API keys minted with scopes, over HTTP on each backend: a key holds only its scopes on every
 * data path (a data:read key cannot write through /data either), the user's grants on top.
 */
import t, { type Test } from 'tap';
import { bearer, eachBackend, signIn } from '../auth/authHarness.ts';
import { serveCrm, type Answer } from './scopesHttp.ts';

const denied = (t: Test, res: Answer, scope: string, what: string) => {
  t.equal(res.status, 403, `${what}: 403`);
  t.equal(res.body?.error?.code, 'SCOPE_DENIED', `${what}: SCOPE_DENIED`);
  t.equal(res.body?.error?.details?.scope, scope, `${what}: names ${scope}`);
  t.match(res.body?.error?.message, /POST \/api\/v1\/keys/, `${what}: says how to get such a key`);
};

t.test('api keys with scopes', async (t) => {
  await eachBackend(t, ['keyscopes'], async (t, site) => {
    const { rt, call } = await serveCrm(site);
    const admin = await signIn(rt);
    const session = bearer(admin.token);
    const mint = async (payload: Record<string, unknown>) => {
      const res = await call('POST', '/api/v1/keys', { headers: session, body: payload });
      t.equal(res.status, 201, `minted ${JSON.stringify(payload)}`);
      return res.body as { id: string; key: string; scopes: string[] | null };
    };
    const seeded = await call('POST', '/api/v1/data/task', { headers: session, body: { subject: 'seeded' } });
    t.equal(seeded.status, 201, 'a task to read');
    const taskId = seeded.body.id as string;

    await t.test('minting: unknown scopes are refused naming the allowed ones; list and get show the scopes', async (t) => {
      const bad = await call('POST', '/api/v1/keys', { headers: session, body: { name: 'bad', scopes: ['data:read', 'data:admin'] } });
      t.equal(bad.status, 400);
      t.equal(bad.body.error.code, 'VALIDATION_ERROR');
      t.match(bad.body.error.message, /body\/scopes\/1 'data:admin' is not a scope: use one of data:read, data:write, actions:execute/);
      t.same(bad.body.error.details.allowed, ['data:read', 'data:write', 'actions:execute']);
      const empty = await call('POST', '/api/v1/keys', { headers: session, body: { name: 'empty', scopes: [] } });
      t.equal(empty.status, 400, 'an empty list is refused (leave scopes out for a key acting as its user)');
      t.match(empty.body.error.message, /non-empty list/);

      const reader = await mint({ name: 'reader', scopes: ['data:read', 'data:read'] });
      t.same(reader.scopes, ['data:read'], 'the scopes of the new key, once each');
      const plain = await mint({ name: 'plain' });
      t.equal(plain.scopes, null, 'a key without scopes acts as its user');
      const list = await call('GET', '/api/v1/keys', { headers: session });
      const byId = new Map((list.body.items as Array<{ id: string; scopes: unknown }>).map((k) => [k.id, k.scopes]));
      t.same(byId.get(reader.id), ['data:read'], 'listed with its scopes');
      t.equal(byId.get(plain.id), null, 'listed without');
      const one = await call('GET', `/api/v1/keys/${reader.id}`, { headers: session });
      t.equal(one.status, 200);
      t.match(one.body, { id: reader.id, name: 'reader', scopes: ['data:read'] });
      t.notOk(JSON.stringify(one.body).includes(reader.key), 'never the secret');
      const stored = await site.query(site.ids[0]!, 'select permissions from sys_api_key where id = ?', [reader.id]);
      t.same(JSON.parse(String(stored[0]!.permissions)), { scopes: ['data:read'] }, 'stored in the key row');
    });

    await t.test('a data:read key reads, and writes nowhere', async (t) => {
      const reader = await mint({ name: 'reader', scopes: ['data:read'] });
      const key = { 'x-api-key': reader.key };
      t.equal((await call('GET', '/api/v1/data/task', { headers: key })).status, 200, 'list');
      t.equal((await call('GET', `/api/v1/data/task/${taskId}`, { headers: key })).status, 200, 'get');
      t.equal((await call('POST', '/api/v1/data/task/query', { headers: key, body: { where: { subject: 'seeded' } } })).status, 200, 'query');
      t.equal((await call('POST', '/api/v1/data/task/export', { headers: key, body: { format: 'json' } })).status, 200, 'export');
      t.equal((await call('GET', '/api/v1/search?q=seeded', { headers: key })).status, 200, 'search');

      const before = (await call('GET', '/api/v1/data/task', { headers: session })).body.items.length as number;
      denied(t, await call('POST', '/api/v1/data/task', { headers: key, body: { subject: 'nope' } }), 'data:write', 'create');
      denied(t, await call('POST', '/api/v1/data/task', { headers: bearer(reader.key), body: { subject: 'nope' } }), 'data:write', 'create with the key as bearer');
      denied(t, await call('PATCH', `/api/v1/data/task/${taskId}`, { headers: key, body: { subject: 'changed' } }), 'data:write', 'update');
      denied(t, await call('DELETE', `/api/v1/data/task/${taskId}`, { headers: key }), 'data:write', 'delete');
      denied(t, await call('PUT', '/api/v1/data/account/upsert?on=name', { headers: key, body: { name: 'Upserted' } }), 'data:write', 'upsert');
      denied(t, await call('POST', '/api/v1/data/task/bulk', { headers: key, body: { operations: [{ method: 'create', values: { subject: 'bulk' } }] } }), 'data:write', 'bulk');
      denied(t, await call('POST', '/api/v1/batch', { headers: key, body: { operations: [{ id: 'a', method: 'POST', object: 'task', body: { subject: 'batch' } }] } }), 'data:write', 'batch');
      denied(t, await call('POST', '/api/v1/data/task/import', { headers: key, body: { format: 'json', rows: [{ subject: 'imported' }] } }), 'data:write', 'import');
      denied(t, await call('POST', `/api/v1/data/task/${taskId}/restore`, { headers: key }), 'data:write', 'restore');
      denied(t, await call('DELETE', `/api/v1/data/task/${taskId}/purge`, { headers: key }), 'data:write', 'purge');
      denied(t, await call('POST', '/api/v1/actions/close_task', { headers: key, body: { recordId: taskId } }), 'actions:execute', 'action');
      const after = await call('GET', '/api/v1/data/task', { headers: session });
      t.equal(after.body.items.length, before, 'nothing was written');
      t.equal(after.body.items.find((r: { id: string }) => r.id === taskId).subject, 'seeded', 'the task is unchanged');

      const user = await call('POST', '/api/v1/auth/admin/create-user', { headers: key, body: { email: 'by-scoped-key@example.com' } });
      t.equal(user.status, 403, "an admin's scoped key cannot administer users");
      t.equal(user.body.error.code, 'SCOPE_DENIED', 'refused by the guard: a write route needs data:write');
    });

    await t.test('a data:write key writes but does not read', async (t) => {
      const writer = await mint({ name: 'writer', scopes: ['data:write'] });
      const key = { 'x-api-key': writer.key };
      const created = await call('POST', '/api/v1/data/task', { headers: key, body: { subject: 'by writer' } });
      t.equal(created.status, 201, 'create');
      t.same(Object.keys(created.body).sort(), ['id', 'version'], 'answered the id and version of what it wrote, nothing more');
      t.equal((await call('PATCH', `/api/v1/data/task/${created.body.id}`, { headers: key, body: { priority: 'high' } })).status, 200, 'update');
      denied(t, await call('GET', '/api/v1/data/task', { headers: key }), 'data:read', 'list');
      denied(t, await call('GET', `/api/v1/data/task/${taskId}`, { headers: key }), 'data:read', 'get');
      denied(t, await call('GET', '/api/v1/search?q=seeded', { headers: key }), 'data:read', 'search');
      denied(t, await call('GET', '/api/v1/search?q=nothingmatchesthis', { headers: key }), 'data:read', 'search with no match (no oracle)');
      denied(t, await call('POST', '/api/v1/data/task/export', { headers: key, body: { format: 'csv' } }), 'data:read', 'export');
    });

    await t.test('actions:execute runs a declared action (its own writes included), and nothing else', async (t) => {
      const runner = await mint({ name: 'runner', scopes: ['actions:execute'] });
      const key = { 'x-api-key': runner.key };
      const run = await call('POST', '/api/v1/actions/close_task', { headers: key, body: { recordId: taskId, note: 'closed by key' } });
      t.equal(run.status, 200, 'the action ran');
      t.same(Object.keys(run.body.result).sort(), ['id', 'version'], 'answered the record\'s id and version (the key does not read)');
      const after = await call('GET', `/api/v1/data/task/${taskId}`, { headers: session });
      t.equal(after.body.status, 'done', 'and wrote what it declares');
      denied(t, await call('PATCH', `/api/v1/data/task/${taskId}`, { headers: key, body: { status: 'open' } }), 'data:write', 'a direct update');
      denied(t, await call('GET', `/api/v1/data/task/${taskId}`, { headers: key }), 'data:read', 'a direct read');
    });

    await t.test('a key without scopes acts as its user; a revoked scoped key is refused at once', async (t) => {
      const plain = await mint({ name: 'plain' });
      t.equal((await call('POST', '/api/v1/data/task', { headers: { 'x-api-key': plain.key }, body: { subject: 'by plain key' } })).status, 201, 'writes as its user');
      const reader = await mint({ name: 'short-lived', scopes: ['data:read'] });
      t.equal((await call('GET', '/api/v1/data/task', { headers: { 'x-api-key': reader.key } })).status, 200, 'valid (and cached)');
      t.equal((await call('DELETE', `/api/v1/keys/${reader.id}`, { headers: session })).status, 204, 'revoked');
      const after = await call('GET', '/api/v1/data/task', { headers: { 'x-api-key': reader.key } });
      t.equal(after.status, 401, 'refused right after revocation');
      t.equal(after.body.error.code, 'UNAUTHENTICATED');
    });
  });
});
