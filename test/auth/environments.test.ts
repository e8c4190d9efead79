/** Environments never share identities; sessions survive restarts; a new secret ends them. */
import t from 'tap';
import { ADMIN, bearer, eachBackend, signIn } from './authHarness.ts';

t.test('a credential of one environment is refused in another', async (t) => {
  await eachBackend(t, ['alpha', 'beta'], async (t, site) => {
    const rt = await site.boot();
    const [a, b] = site.ids as [string, string];
    const inA = await signIn(rt, ADMIN.email, ADMIN.password, { 'x-environment-id': a });
    const inB = await signIn(rt, ADMIN.email, ADMIN.password, {}, `/api/v1/environments/${b}/auth/sign-in`);
    t.not(inA.user.id, inB.user.id, 'each environment has its own admin');
    t.not(inA.cookie.split('=')[0], inB.cookie.split('=')[0], 'and its own cookie name');
    const keyA = (await rt.inject({ method: 'POST', url: '/api/v1/keys', headers: { ...bearer(inA.token), 'x-environment-id': a }, payload: {} })).json().key as string;

    const attempts: Array<[string, string, Record<string, string>, number]> = [
      ['A token in A (header)', '/api/v1/keys', { ...bearer(inA.token), 'x-environment-id': a }, 200],
      ['A token in A (path)', `/api/v1/environments/${a}/keys`, bearer(inA.token), 200],
      ['A token in B (header)', '/api/v1/keys', { ...bearer(inA.token), 'x-environment-id': b }, 401],
      ['A token in B (path)', `/api/v1/environments/${b}/keys`, bearer(inA.token), 401],
      ['B token in A (header)', '/api/v1/keys', { ...bearer(inB.token), 'x-environment-id': a }, 401],
      ['B token in A (path)', `/api/v1/environments/${a}/keys`, bearer(inB.token), 401],
      ['B token in B (path)', `/api/v1/environments/${b}/keys`, bearer(inB.token), 200],
      ['A cookie in B', `/api/v1/environments/${b}/keys`, { cookie: inA.cookie }, 401],
      ['B cookie in A', `/api/v1/environments/${a}/keys`, { cookie: inB.cookie }, 401],
      ['A key in B', `/api/v1/environments/${b}/keys`, { 'x-api-key': keyA }, 401],
      ['A key in A', `/api/v1/environments/${a}/keys`, { 'x-api-key': keyA }, 200],
      // The path prefix wins over the header: a header cannot pull a request into another environment.
      ['A token, path B, header A', `/api/v1/environments/${b}/keys`, { ...bearer(inA.token), 'x-environment-id': a }, 401],
    ];
    for (const [name, url, headers, status] of attempts) {
      const res = await rt.inject({ url, headers });
      t.equal(res.statusCode, status, name);
    }

    const elsewhere = await rt.inject({ url: `/api/v1/environments/${b}/keys`, headers: bearer(inA.token) });
    t.equal(elsewhere.json().error.code, 'UNAUTHENTICATED');
    t.same(elsewhere.json().error.details, { reason: 'OTHER_ENVIRONMENT', credential: 'bearer', environmentId: b, issuedBy: a }, 'the 401 says the token is of another environment');
    t.match(elsewhere.json().error.message, `issued by environment '${a}', not by '${b}'`, 'and so does its message');
    const forged = await rt.inject({ url: `/api/v1/environments/${b}/keys`, headers: bearer(`${inA.token.split('.')[0]}.AAAA`) });
    t.equal(forged.json().error.details.reason, 'CREDENTIAL_INVALID', 'a token no environment signed is only not valid');

    const session = await rt.inject({ url: `/api/v1/environments/${b}/auth/get-session`, headers: bearer(inA.token) });
    t.equal(session.statusCode, 200);
    t.equal(session.body, 'null', "B's engine does not know A's session");
    const own = await rt.inject({ url: `/api/v1/environments/${a}/auth/get-session`, headers: bearer(inA.token) });
    t.equal(own.json().user.id, inA.user.id, 'the prefixed path reaches the right engine');
    const unknown = await rt.inject({ url: '/api/v1/environments/nowhere/auth/get-session', headers: bearer(inA.token) });
    t.equal(unknown.statusCode, 404, 'an unknown environment is 404');
  });
});

t.test('sessions survive a restart; a changed secret invalidates them', async (t) => {
  await eachBackend(t, ['main'], async (t, site) => {
    const first = await site.boot();
    const { token, cookie } = await signIn(first);
    const key = (await first.inject({ method: 'POST', url: '/api/v1/keys', headers: bearer(token), payload: {} })).json().key as string;
    await first.close();

    const second = await site.boot();
    t.equal((await second.inject({ url: '/api/v1/keys', headers: bearer(token) })).statusCode, 200, 'the bearer token still works');
    t.equal((await second.inject({ url: '/api/v1/keys', headers: { cookie } })).statusCode, 200, 'the cookie still works');
    const users = await site.query(site.ids[0]!, 'select count(*) as n from sys_user');
    t.equal(Number(users[0]!.n), 1, 'the first admin was not created twice');
    await second.close();

    const rotated = await site.boot({ secret: 'another-secret-0123456789-0123456789-xyz' });
    t.equal((await rotated.inject({ url: '/api/v1/keys', headers: bearer(token) })).statusCode, 401, 'the bearer token is refused');
    t.equal((await rotated.inject({ url: '/api/v1/keys', headers: { cookie } })).statusCode, 401, 'the cookie is refused');
    t.equal((await rotated.inject({ url: '/api/v1/keys', headers: { 'x-api-key': key } })).statusCode, 200, 'API keys are hashes in the database, not signed: they survive');
    const again = await signIn(rotated);
    t.equal((await rotated.inject({ url: '/api/v1/keys', headers: bearer(again.token) })).statusCode, 200, 'signing in again works');
  });
});

t.test('the first admin is created once, never re-created nor reset', async (t) => {
  await eachBackend(t, ['main'], async (t, site) => {
    const first = await site.boot();
    const { token, user } = await signIn(first);
    const change = await first.inject({ method: 'POST', url: '/api/v1/auth/change-password', headers: bearer(token), payload: { currentPassword: ADMIN.password, newPassword: 'changed-password-1' } });
    t.equal(change.statusCode, 200);
    await first.close();

    const second = await site.boot();
    const old = await second.inject({ method: 'POST', url: '/api/v1/auth/sign-in', payload: ADMIN });
    t.equal(old.statusCode, 401, 'the configured password was not put back');
    const now = await signIn(second, ADMIN.email, 'changed-password-1');
    t.equal(now.user.id, user.id, 'same account');
    await site.query(site.ids[0]!, 'delete from sys_user where id = ?', [user.id]);
    await second.close();

    await site.boot();
    const users = await site.query(site.ids[0]!, 'select count(*) as n from sys_user');
    t.equal(Number(users[0]!.n), 0, 'a deleted first admin is not re-created');
  });
});

t.test('with api.requireAuth false, a credential that is sent but not valid is 401, not anonymous', async (t) => {
  await eachBackend(t, ['open'], async (t, site) => {
    const rt = await site.boot({ config: { api: { requireAuth: false }, apps: ['metadata/apps/crm'], plugins: { crm: { enabled: true } } } });
    const list = (headers: Record<string, string> = {}) => rt.inject({ url: '/api/v1/data/account', headers });
    t.equal((await list()).statusCode, 200, 'no credential: anonymous');
    const { token } = await signIn(rt);
    t.equal((await list(bearer(token))).statusCode, 200, 'a valid bearer token');
    const key = (await rt.inject({ method: 'POST', url: '/api/v1/keys', headers: bearer(token), payload: {} })).json() as { id: string; key: string };
    t.equal((await list({ 'x-api-key': key.key })).statusCode, 200, 'a valid key');
    t.equal((await rt.inject({ method: 'DELETE', url: `/api/v1/keys/${key.id}`, headers: bearer(token) })).statusCode, 204);
    t.equal((await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-out', headers: bearer(token) })).statusCode, 200);
    for (const [name, headers, credential] of [
      ['a signed-out bearer token', bearer(token), 'bearer'],
      ['a made-up bearer token', bearer('made-up.token'), 'bearer'],
      ['a revoked API key', { 'x-api-key': key.key }, 'apiKey'],
      ['a made-up API key', bearer('osk_made_up_key'), 'apiKey'],
    ] as const) {
      const res = await list(headers);
      t.equal(res.statusCode, 401, `${name}: 401`);
      t.equal(res.json().error.code, 'UNAUTHENTICATED', `${name}: UNAUTHENTICATED`);
      t.same({ reason: res.json().error.details.reason, credential: res.json().error.details.credential }, { reason: 'CREDENTIAL_INVALID', credential }, `${name}: says which credential`);
      t.match(res.json().error.message, /not valid in environment .*unknown, expired or revoked/, `${name}: and why`);
    }
    t.equal((await rt.inject({ url: '/api/v1/health', headers: bearer(token) })).statusCode, 200, 'a public route serves a stale credential as anonymous');
    t.equal((await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-in', headers: bearer(token), payload: ADMIN })).statusCode, 200, 'and signing in again works');
  });
});
