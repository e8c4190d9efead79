/** The route guard: authentication for non-public routes, permission keys, fail closed. */
import t from 'tap';
import type { RouteDefinition } from '../../capabilities/httpRoutes.ts';
import { as, boot, routesPlugin, runScenarios, testAuth, type Scenario } from './fixtures.ts';

const routes: RouteDefinition[] = [
  { method: 'GET', path: '/private', summary: 'Needs a caller', handler: (request) => ({ secret: 'private-data', who: request.principal?.userId ?? null }) },
  { method: 'GET', path: '/open', public: true, summary: 'Anyone', handler: () => ({ open: true }) },
  { method: 'POST', path: '/approve', permission: 'ai:approve', summary: 'Needs ai:approve', handler: () => ({ approved: true }) },
  // public opens a route to anonymous callers, but a permission key still needs someone to hold it.
  { method: 'POST', path: '/public-approve', public: true, permission: 'ai:approve', summary: 'Public with a key', handler: () => ({ approved: true }) },
  {
    method: 'POST', path: '/strict', summary: 'Validates its body',
    schema: { body: { type: 'object', required: ['internalField'], properties: { internalField: { type: 'string' } } } },
    handler: () => ({ ok: true }),
  },
];
const guarded = () => routesPlugin('guarded', routes);

const unauthenticated = (name: string, request: Scenario['request'], absent: string[] = ['private-data', 'approved']): Scenario => ({
  name, request, status: 401, code: 'UNAUTHENTICATED', absent,
  expect: { error: { message: 'Authentication required: send a session cookie, a bearer token or an API key.', details: {} } },
});
const denied = (name: string, user: string): Scenario => ({
  name, request: { method: 'POST', url: '/api/v1/approve', headers: as(user) }, status: 403, code: 'PERMISSION_DENIED', absent: ['approved'],
  expect: { error: { message: 'Permission denied: ai:approve is required.', details: { permission: 'ai:approve', subjectId: user } } },
});

t.test('requireAuth true (the default) with an auth provider', async (t) => {
  const rt = await boot([testAuth, guarded()]);
  t.teardown(() => rt.close());
  await runScenarios(t, rt, [
    unauthenticated('a non-public route without credentials is 401', { method: 'GET', url: '/api/v1/private' }),
    unauthenticated('an unknown credential is 401', { method: 'GET', url: '/api/v1/private', headers: as('mallory') }),
    { name: 'with credentials it is 200', request: { method: 'GET', url: '/api/v1/private', headers: as('alice') }, status: 200, expect: { secret: 'private-data', who: 'alice' } },
    { name: 'a public route is open to anyone', request: { method: 'GET', url: '/api/v1/open' }, status: 200, expect: { open: true } },
    unauthenticated('a permission route without credentials is 401', { method: 'POST', url: '/api/v1/approve' }),
    denied('a principal lacking the permission is 403 with the key and the subject', 'alice'),
    unauthenticated('a public route with a permission key is 401 without credentials', { method: 'POST', url: '/api/v1/public-approve' }),
    { name: 'a principal holding the permission passes', request: { method: 'POST', url: '/api/v1/approve', headers: as('approver') }, status: 200, expect: { approved: true } },
    { name: 'an admin passes every permission', request: { method: 'POST', url: '/api/v1/approve', headers: as('root') }, status: 200, expect: { approved: true } },
    // The guard runs before the body is parsed: no schema detail reaches an anonymous caller.
    unauthenticated('an anonymous invalid body is 401, not a validation error', { method: 'POST', url: '/api/v1/strict', payload: { other: 1 } }, ['internalField', 'VALIDATION_ERROR']),
    unauthenticated('anonymous malformed JSON is 401', { method: 'POST', url: '/api/v1/strict', headers: { 'content-type': 'application/json' }, payload: '{' }, ['MALFORMED_JSON']),
    {
      name: 'an authenticated invalid body gets the validation error',
      request: { method: 'POST', url: '/api/v1/strict', headers: as('alice'), payload: { other: 1 } },
      status: 400, code: 'VALIDATION_ERROR', expect: { error: { details: { errors: [{ path: 'body', message: "must have required property 'internalField'" }] } } },
    },
  ]);
  // fastify adds a HEAD route for every GET; it must carry the same guard.
  t.equal((await rt.inject({ method: 'HEAD', url: '/api/v1/private' })).statusCode, 401, 'HEAD without credentials is 401');
  t.equal((await rt.inject({ method: 'HEAD', url: '/api/v1/private', headers: as('alice') })).statusCode, 200, 'HEAD with credentials is 200');
});

t.test('requireAuth false: anonymous callers reach non-public routes, but never permission routes', async (t) => {
  const rt = await boot([testAuth, guarded()], { api: { requireAuth: false } });
  t.teardown(() => rt.close());
  await runScenarios(t, rt, [
    { name: 'anonymous on a non-public route is 200', request: { method: 'GET', url: '/api/v1/private' }, status: 200, expect: { who: null } },
    unauthenticated('anonymous on a permission route is 401', { method: 'POST', url: '/api/v1/approve' }),
    denied('a principal lacking the permission is still 403', 'alice'),
    { name: 'a principal holding it passes', request: { method: 'POST', url: '/api/v1/approve', headers: as('approver') }, status: 200, expect: { approved: true } },
  ]);
});

t.test('no auth provider at all and requireAuth true: non-public routes fail closed', async (t) => {
  const rt = await boot([guarded()]);
  t.teardown(() => rt.close());
  await runScenarios(t, rt, [
    unauthenticated('a non-public route is 401', { method: 'GET', url: '/api/v1/private' }),
    unauthenticated('a credential nobody can check is 401', { method: 'GET', url: '/api/v1/private', headers: as('root') }),
    unauthenticated('a permission route is 401', { method: 'POST', url: '/api/v1/approve', headers: as('root') }),
    { name: 'a public route is 200', request: { method: 'GET', url: '/api/v1/open' }, status: 200, expect: { open: true } },
    { name: 'health is public', request: { method: 'GET', url: '/api/v1/health' }, status: 200, expect: { status: 'ok' } },
  ]);
});

t.test('no auth provider and requireAuth false: permission routes still refuse anonymous callers', async (t) => {
  const rt = await boot([guarded()], { api: { requireAuth: false } });
  t.teardown(() => rt.close());
  await runScenarios(t, rt, [
    { name: 'a non-public route is 200', request: { method: 'GET', url: '/api/v1/private' }, status: 200, expect: { who: null } },
    unauthenticated('a permission route is 401', { method: 'POST', url: '/api/v1/approve' }),
  ]);
});
