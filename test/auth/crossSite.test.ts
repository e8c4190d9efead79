/** Cookie-authenticated writes from another origin or site are refused on every route; bearer and API-key calls are not concerned. */
import t from 'tap';
import { ADMIN, SECRET, bearer, eachBackend, signIn } from './authHarness.ts';

const TRUSTED = 'https://app.example.com';

t.test('cross-site requests with the session cookie', async (t) => {
  await eachBackend(t, ['xsite'], async (t, site) => {
    const rt = await site.boot({ config: { apps: ['metadata/apps/crm'], auth: { secret: SECRET, admin: ADMIN, trustedOrigins: [TRUSTED] } } });
    const { cookie, token } = await signIn(rt);
    const key = (await rt.inject({ method: 'POST', url: '/api/v1/keys', headers: bearer(token), payload: { name: 'xsite' } })).json().key as string;
    const count = async () => (await rt.inject({ url: '/api/v1/data/account', headers: bearer(token) })).json().total as number;
    const create = (headers: Record<string, string>, name: string) => rt.inject({ method: 'POST', url: '/api/v1/data/account', headers, payload: { name } });

    await t.test('a foreign Origin with the cookie: 403 INVALID_ORIGIN on POST, PATCH and DELETE, nothing written', async (t) => {
      const before = await count();
      const res = await create({ cookie, origin: 'https://evil.example' }, 'forged');
      t.equal(res.statusCode, 403);
      t.match(res.json(), { error: { code: 'PERMISSION_DENIED', details: { reason: 'INVALID_ORIGIN', origin: 'https://evil.example', method: 'POST' } } });
      t.match(res.json().error.message, /auth\.trustedOrigins/, 'the message names the fix');
      t.equal(await count(), before, 'no record created');

      const own = await create({ cookie, origin: 'http://localhost' }, 'own');
      t.equal(own.statusCode, 201, "the server's own origin is accepted");
      const id = own.json().id as string;
      const patch = await rt.inject({ method: 'PATCH', url: `/api/v1/data/account/${id}`, headers: { cookie, origin: 'https://evil.example' }, payload: { name: 'changed' } });
      t.equal(patch.statusCode, 403, 'PATCH refused');
      const del = await rt.inject({ method: 'DELETE', url: `/api/v1/data/account/${id}`, headers: { cookie, origin: 'null' } });
      t.equal(del.statusCode, 403, 'DELETE from an opaque origin (null) refused');
      const read = await rt.inject({ url: `/api/v1/data/account/${id}`, headers: bearer(token) });
      t.equal(read.json().name, 'own', 'the record is unchanged');
    });

    await t.test('Sec-Fetch-Site: cross-site with the cookie is refused even without an Origin', async (t) => {
      const res = await create({ cookie, 'sec-fetch-site': 'cross-site' }, 'forged-2');
      t.equal(res.statusCode, 403);
      t.match(res.json(), { error: { code: 'PERMISSION_DENIED', details: { reason: 'CROSS_SITE_REQUEST', method: 'POST' } } });
      const keys = await rt.inject({ method: 'POST', url: '/api/v1/keys', headers: { cookie, 'sec-fetch-site': 'cross-site' }, payload: { name: 'forged' } });
      t.equal(keys.statusCode, 403, 'an auth route is covered too');
    });

    await t.test('same origin, a trusted origin and clients without Origin pass', async (t) => {
      t.equal((await create({ cookie, origin: 'http://localhost', 'sec-fetch-site': 'same-origin' }, 'same')).statusCode, 201);
      t.equal((await create({ cookie, origin: TRUSTED, 'sec-fetch-site': 'same-site' }, 'trusted')).statusCode, 201, 'auth.trustedOrigins');
      t.equal((await create({ cookie }, 'no-origin')).statusCode, 201, 'no Origin, no Sec-Fetch-Site: not a browser');
    });

    await t.test('reads with the cookie from anywhere, and bearer and API-key writes from anywhere, are not concerned', async (t) => {
      const read = await rt.inject({ url: '/api/v1/data/account', headers: { cookie, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } });
      t.equal(read.statusCode, 200, 'GET');
      const viaBearer = await create({ ...bearer(token), cookie, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }, 'bearer');
      t.equal(viaBearer.statusCode, 201, 'bearer');
      const viaKey = await create({ 'x-api-key': key, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }, 'api-key');
      t.equal(viaKey.statusCode, 201, 'API key');
    });
  });
});

t.test('with baseURL set, the own origin is the configured one, not the Host header', async (t) => {
  await eachBackend(t, ['xbase'], async (t, site) => {
    if (site.backend === 'postgres') return;
    const rt = await site.boot({ auth: { baseURL: 'https://crm.example.com' }, config: { apps: ['metadata/apps/crm'] } });
    const { cookie } = await signIn(rt);
    const create = (origin: string) => rt.inject({ method: 'POST', url: '/api/v1/data/account', headers: { cookie, origin }, payload: { name: 'x' } });
    t.equal((await create('https://crm.example.com')).statusCode, 201, 'the configured origin');
    t.equal((await create('http://localhost')).statusCode, 403, "the request's own host is not trusted when baseURL says otherwise");
  });
});
