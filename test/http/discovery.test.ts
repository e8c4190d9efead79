/** Discovery and health; a plugin left out of the boot leaves no route behind. */
import t from 'tap';
import { PROTOCOL_VERSION } from '../../kernel/index.ts';
import { DEPRECATION_POLICY } from '../../plugins/http/discoveryRoutes.ts';
import { RUNTIME_VERSION } from '../../runtime/version.ts';
import { as, boot, routesPlugin, runScenarios, testAuth } from './fixtures.ts';

const guarded = routesPlugin('guarded', [
  { method: 'GET', path: '/private', summary: 'Needs a caller', handler: () => ({ ok: true }) },
  { method: 'POST', path: '/approve', permission: 'ai:approve', summary: 'Needs ai:approve', handler: () => ({ ok: true }) },
]);
// Left out of the boot: its start fails and it asks the runtime to continue without it.
const flaky = routesPlugin('flaky', [{ method: 'GET', path: '/flaky', public: true, summary: 'Never served', handler: () => ({ served: true }) }], {
  onBootFailure: 'continue',
  start() {
    throw new Error('upstream unreachable');
  },
});

const rt = await boot([testAuth, guarded, flaky]);
t.teardown(() => rt.close());

const head = {
  name: 'osr-runtime', version: RUNTIME_VERSION, protocol: PROTOCOL_VERSION,
  api: { current: 'v2', supported: ['v1', 'v2'], horizon: DEPRECATION_POLICY.horizon },
  scoping: { mode: 'environment', header: 'X-Environment-Id', pathPrefix: '/api/v1/environments/:environmentId' },
};
type Listed = { method: string; path: string; public: boolean; permission: string | null; plugin: string };
const routesOf = async (url: string) => ((await rt.inject({ method: 'GET', url, headers: as('alice') })).json() as { routes: Listed[] }).routes;

t.equal(RUNTIME_VERSION, '16.0.0', 'the runtime version is the package version');
t.match(DEPRECATION_POLICY.deprecated.v1, { deprecatedAt: /^2026-/, sunset: /^2027-/ }, 'v1 has a deprecation date and a sunset');

await t.test('anonymous: version, protocol, scoping and horizon, but no route list', (t) => runScenarios(t, rt, ['/api/v1', '/api/v1/discovery'].map((url) => ({
  name: `GET ${url}`, request: { method: 'GET' as const, url }, status: 200,
  expect: { ...head, routes: null, auth: { requireAuth: true } }, absent: ['/api/v1/private', '/api/v1/approve', 'guarded'],
}))));

t.test('authenticated: every mounted route with its owner, on both paths', async (t) => {
  for (const url of ['/api/v1', '/api/v1/discovery']) {
    const routes = await routesOf(url);
    const find = (method: string, path: string) => routes.find((r) => r.method === method && r.path === path);
    t.hasStrict(find('GET', '/api/v1/health'), { public: true, permission: null, plugin: 'http' }, `${url} lists health`);
    t.hasStrict(find('GET', '/api/v1'), { public: true, plugin: 'http' }, `${url} lists discovery`);
    t.hasStrict(find('GET', '/api/v1/private'), { public: false, permission: null, plugin: 'guarded' }, `${url} lists the test route`);
    t.hasStrict(find('POST', '/api/v1/approve'), { public: false, permission: 'ai:approve', plugin: 'guarded' }, `${url} lists the permission key`);
    t.equal(find('GET', '/api/v1/flaky'), undefined, `${url} omits the plugin left out`);
  }
});

t.test('GET /api/v1/health is public: status, version, uptime', async (t) => {
  const res = await rt.inject({ method: 'GET', url: '/api/v1/health' });
  t.equal(res.statusCode, 200);
  const body = res.json() as { status: string; version: string; uptimeSeconds: number; details: unknown };
  t.same(Object.keys(body).sort(), ['details', 'status', 'uptimeSeconds', 'version']);
  t.same(body.details, { caches: 'trusted', signals: [] }, 'one process on SQLite: no signal path, caches trusted');
  t.equal(body.status, 'ok');
  t.equal(body.version, RUNTIME_VERSION);
  t.ok(Number.isInteger(body.uptimeSeconds) && body.uptimeSeconds >= 0, 'uptime in whole seconds');
});

t.test("a plugin with onBootFailure 'continue' whose start throws: boot goes on without its routes", async (t) => {
  const state = rt.runtime.kernel.states().find((s) => s.name === 'flaky');
  t.equal(state?.status, 'failed');
  t.equal(state?.error?.code, 'KERNEL_PHASE_FAILED');
  t.match(state?.error?.message, "Plugin 'flaky' failed in start: upstream unreachable.");
  t.equal(rt.runtime.kernel.states().find((s) => s.name === 'guarded')?.status, 'ready', 'the others boot');
  await runScenarios(t, rt, [
    { name: 'its route is not mounted', request: { method: 'GET', url: '/api/v1/flaky' }, status: 404, code: 'ROUTE_NOT_FOUND', absent: ['served'] },
    { name: 'the routes of the others are', request: { method: 'GET', url: '/api/v1/private', headers: as('alice') }, status: 200, expect: { ok: true } },
  ]);
});

t.test('requireAuth false: anonymous callers get the route list', async (t) => {
  const open = await boot([guarded], { api: { requireAuth: false } });
  t.teardown(() => open.close());
  const body = (await open.inject('/api/v1')).json() as { routes: Listed[]; auth: { requireAuth: boolean } };
  t.equal(body.auth.requireAuth, false);
  t.equal(body.routes.some((r) => r.path === '/api/v1/private' && r.plugin === 'guarded'), true, 'the test route is listed');
});
