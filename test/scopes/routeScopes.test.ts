/**
 * Credential scopes on every route, not only the data engine's: the HTTP guard refuses a scoped
 * credential a route's scope (declared, else data:read for GET and data:write for other methods)
 * before the handler runs, on each backend.
 */
import t, { type Test } from 'tap';
import type { HttpRoutes, RegisteredRoute } from '../../capabilities/httpRoutes.ts';
import { routeScope } from '../../capabilities/routeScope.ts';
import { RouteRegistry } from '../../plugins/http/routeRegistry.ts';
import { bearer, eachBackend, signIn } from '../auth/authHarness.ts';
import { serveCrm, type Answer } from './scopesHttp.ts';

const denied = (t: Test, res: Answer, scope: string, what: string) => {
  t.equal(res.status, 403, `${what}: 403`);
  t.equal(res.body?.error?.code, 'SCOPE_DENIED', `${what}: SCOPE_DENIED`);
  t.equal(res.body?.error?.details?.scope, scope, `${what}: names ${scope}`);
};

t.test('routeScope: declared, else by method; none needs nothing', async (t) => {
  t.equal(routeScope({ method: 'GET' }), 'data:read');
  t.equal(routeScope({ method: 'POST' }), 'data:write');
  t.equal(routeScope({ method: 'DELETE' }), 'data:write');
  t.equal(routeScope({ method: 'POST', scope: 'data:read' }), 'data:read');
  t.equal(routeScope({ method: 'POST', scope: 'actions:execute' }), 'actions:execute');
  t.equal(routeScope({ method: 'POST', scope: 'none' }), null);
  const registry = new RouteRegistry();
  t.throws(() => registry.add('p', { method: 'POST', path: '/x', summary: 'x', scope: 'data:admin' as never, handler: () => null }),
    { code: 'KERNEL_INVALID_MANIFEST', message: /route POST \/x: scope.*'data:admin' is not a credential scope/ }, 'an unknown scope is refused naming the route');
});

t.test('scoped credentials on the routes of every plugin', async (t) => {
  await eachBackend(t, ['routescopes'], async (t, site) => {
    const { rt, call } = await serveCrm(site);
    const admin = await signIn(rt);
    const session = bearer(admin.token);
    const mint = async (scopes: string[]) => {
      const res = await call('POST', '/api/v1/keys', { headers: session, body: { name: scopes.join('+'), scopes } });
      t.equal(res.status, 201, `minted ${scopes.join(', ')}`);
      return { 'x-api-key': String(res.body.key) };
    };
    const reader = await mint(['data:read']);
    const writer = await mint(['data:read', 'data:write']);
    const runner = await mint(['actions:execute']);
    const task = (await call('POST', '/api/v1/data/task', { headers: session, body: { subject: 'scoped' } })).body as { id: string };
    const comment = await call('POST', `/api/v1/data/task/${task.id}/comments`, { headers: session, body: { body: 'FIRST-BODY' } });
    t.equal(comment.status, 201, 'a comment by the admin');
    const commentId = String(comment.body.id);

    await t.test('a data:read key changes nothing outside /data either', async (t) => {
      denied(t, await call('POST', `/api/v1/data/task/${task.id}/comments`, { headers: reader, body: { body: 'by reader' } }), 'data:write', 'comment create');
      denied(t, await call('PATCH', `/api/v1/data/task/${task.id}/comments/${commentId}`, { headers: reader, body: { body: 'EDITED' } }), 'data:write', 'comment edit');
      denied(t, await call('DELETE', `/api/v1/data/task/${task.id}/comments/${commentId}`, { headers: reader }), 'data:write', 'comment delete');
      denied(t, await call('POST', '/api/v1/notifications/read-all', { headers: reader }), 'data:write', 'notifications mark-read');
      denied(t, await call('DELETE', `/api/v1/data/task/${task.id}/files/nothing`, { headers: reader }), 'data:write', 'file delete');
      denied(t, await call('POST', '/api/v1/reports', { headers: reader, body: { name: 'R', query: { object: 'task' } } }), 'data:write', 'report create');
      denied(t, await call('POST', '/api/v1/keys', { headers: reader, body: { name: 'another' } }), 'data:write', 'key mint');
      denied(t, await call('POST', `/api/v1/data/task/${task.id}/shares`, { headers: reader, body: { recipientType: 'user', recipientId: 'x', access: 'read' } }), 'data:write', 'share');
      denied(t, await call('POST', '/api/v1/approvals/requests', { headers: reader, body: { object: 'task', recordId: task.id } }), 'data:write', 'approval request');
      denied(t, await call('POST', '/api/v1/actions/close_task', { headers: reader, body: { recordId: task.id } }), 'actions:execute', 'action');
      const comments = await call('GET', `/api/v1/data/task/${task.id}/comments`, { headers: reader });
      t.equal(comments.status, 200, 'it reads the comments');
      t.same(comments.body.items.map((c: { body: string }) => c.body), ['FIRST-BODY'], 'unchanged, and none added');
      t.equal((await call('POST', '/api/v1/data/task/query', { headers: reader, body: { where: { subject: 'scoped' } } })).status, 200, 'a POST declared data:read answers');
    });

    await t.test('every non-public write route of every plugin refuses a data:read key before its handler', async (t) => {
      const routes = rt.runtime.kernel.service<HttpRoutes>('http.routes')!.list();
      const writes = routes.filter((r: RegisteredRoute) => !r.public && r.method !== 'GET' && routeScope(r) === 'data:write');
      t.ok(writes.length >= 40, `${writes.length} write routes`);
      const path = (r: RegisteredRoute) => r.fullPath.replace(':object', 'task').replace(':id', task.id).replace(/:[A-Za-z]+/g, 'x').replace('*', 'x');
      const answered: string[] = [];
      for (const route of writes) {
        const res = await call(route.method, path(route), { headers: reader, body: {} });
        if (res.status !== 403 || res.body?.error?.code !== 'SCOPE_DENIED' || res.body?.error?.details?.scope !== 'data:write') answered.push(`${route.method} ${route.fullPath}: ${res.status}`);
      }
      t.same(answered, [], 'each answered 403 SCOPE_DENIED naming data:write');
    });

    await t.test('a key holding data:write passes the same routes; actions:execute alone reads nothing', async (t) => {
      const added = await call('POST', `/api/v1/data/task/${task.id}/comments`, { headers: writer, body: { body: 'by writer' } });
      t.equal(added.status, 201, 'comment create');
      t.equal((await call('PATCH', `/api/v1/data/task/${task.id}/comments/${String(added.body.id)}`, { headers: writer, body: { body: 'edited by writer' } })).status, 200, 'comment edit');
      t.equal((await call('POST', '/api/v1/notifications/read-all', { headers: writer })).status, 200, 'notifications mark-read');
      const minted = await call('POST', '/api/v1/keys', { headers: writer, body: { name: 'escape' } });
      t.equal(minted.status, 403, 'holding data:write, a scoped key still mints no key');
      t.equal(minted.body.error.details.permission, 'keys:mint', 'the handler refuses every scoped credential');
      denied(t, await call('GET', '/api/v1/keys', { headers: runner }), 'data:read', 'a GET outside /data');
      denied(t, await call('GET', '/api/v1/notifications', { headers: runner }), 'data:read', 'notifications list');
      t.equal((await call('GET', '/api/v1/keys', { headers: session })).status, 200, 'a session is not scoped');
    });
  });
});
