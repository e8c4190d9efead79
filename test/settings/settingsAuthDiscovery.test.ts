/**
 * A provider set in an environment's `auth` settings whose discovery document never arrives (a
 * server that accepts the connection and never answers) does not hang the environment's sign-in:
 * a request waits a bounded time for the engine built from the settings and is answered 503
 * SERVICE_UNAVAILABLE; password sign-in is unaffected; settings that work take over at once.
 */
import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { bearer, signIn, sqliteSite } from '../auth/authHarness.ts';
import { startIdp } from '../auth/oidcIdp.ts';

t.test('a silent discovery URL in the settings is answered 503 within a bounded wait', async (t) => {
  const sockets = new Set<Socket>();
  const silent = createServer((socket) => { sockets.add(socket); });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => { for (const s of sockets) s.destroy(); silent.close(() => resolve()); }));
  const idp = await startIdp(['http://localhost/api/v1/auth/oauth2/callback/tenant-idp']);
  t.teardown(() => idp.close());

  const site = sqliteSite(t, ['discovery']);
  const rt = await site.boot({ config: { apps: [] } });
  const admin = (await signIn(rt)).token;
  const provider = (discoveryUrl: string) => ({ oidcProviders: [{ id: 'tenant-idp', name: 'Tenant', discoveryUrl, clientId: idp.clientId, clientSecret: idp.clientSecret }] });
  const put = await rt.inject({ method: 'PUT', url: '/api/v1/settings/auth', headers: bearer(admin), payload: provider(`http://127.0.0.1:${(silent.address() as AddressInfo).port}/.well-known/openid-configuration`) });
  t.equal(put.statusCode, 200, put.body);

  const start = () => rt.inject({ method: 'POST', url: '/api/v1/auth/sign-in/social', payload: { provider: 'tenant-idp', callbackURL: '/welcome' } });
  const waiting = await start();
  t.equal(waiting.statusCode, 503, waiting.body);
  t.equal(waiting.json().error.code, 'SERVICE_UNAVAILABLE');
  t.match(waiting.json().error.message, /auth settings/, 'naming the settings');
  t.equal((await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-in', payload: { email: 'admin@example.com', password: 'admin-password-1' } })).statusCode, 200, 'password sign-in is not held up');

  const fixed = await rt.inject({ method: 'PUT', url: '/api/v1/settings/auth', headers: bearer(admin), payload: provider(idp.discoveryUrl) });
  t.equal(fixed.statusCode, 200, fixed.body);
  const works = await start();
  t.equal(works.statusCode, 200, works.body);
  t.equal(new URL(works.json().url as string).origin, idp.issuer, 'settings that work take over at once');
});
