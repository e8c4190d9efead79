/**
 * GET /auth/methods (the sign-in methods on) and GET /auth/environments (the environments this
 * browser is signed in to), on SQLite and PostgreSQL.
 */
import t from 'tap';
import { ADMIN, bearer, eachBackend, signIn } from './authHarness.ts';

const SINK = { provider: 'log' };

t.test('GET /auth/methods says which sign-in methods are on, to anyone', async (t) => {
  await eachBackend(t, ['main', 'other'], async (t, site) => {
    const plain = await site.boot();
    const off = await plain.inject({ url: '/api/v1/auth/methods' });
    t.equal(off.statusCode, 200, 'public: no credential needed');
    t.same(off.json(), { password: true, passkey: false, magicLink: false, phoneNumber: false, twoFactor: true }, 'the defaults');
    await plain.close();

    const noMail = await site.boot({ auth: { magicLink: { enabled: true }, twoFactor: { enabled: false } } });
    t.same((await noMail.inject({ url: '/api/v1/auth/methods' })).json(), { password: true, passkey: false, magicLink: false, phoneNumber: false, twoFactor: false },
      'magic links without a mail provider are off (the engine has no route for them); two-factor off');
    await noMail.close();

    const on = await site.boot({ auth: { magicLink: { enabled: true }, passkeys: { enabled: true } }, email: SINK });
    const expected = { password: true, passkey: true, magicLink: true, phoneNumber: false, twoFactor: true };
    t.same((await on.inject({ url: '/api/v1/auth/methods' })).json(), expected, 'passkeys and magic links on');
    t.same((await on.inject({ url: `/api/v1/environments/${site.ids[1]}/auth/methods` })).json(), expected, 'the same in every environment');
    const signedIn = await signIn(on);
    t.same((await on.inject({ url: '/api/v1/auth/methods', headers: bearer(signedIn.token) })).json(), expected, 'and to a signed-in caller');
  });
});

t.test('GET /auth/environments names the environments whose valid session the request carries', async (t) => {
  await eachBackend(t, ['alpha', 'beta', 'gamma'], async (t, site) => {
    const [a, b, g] = site.ids as [string, string, string];
    const rt = await site.boot({ config: { environments: [{ id: a, label: 'Alpha' }, { id: b, label: 'Beta' }, { id: g }] } });
    const inA = await signIn(rt);
    const inB = await signIn(rt, ADMIN.email, ADMIN.password, {}, `/api/v1/environments/${b}/auth/sign-in`);
    const list = async (url: string, headers: Record<string, string>) => {
      const res = await rt.inject({ url, headers });
      t.equal(res.statusCode, 200, `${url} answers`);
      return res.json().items as Array<{ id: string; label: string; default: boolean; current: boolean; user: { id: string; email: string | null } }>;
    };
    const both = `${inA.cookie}; ${inB.cookie}`;

    t.same(await list('/api/v1/auth/environments', { cookie: both }), [
      { id: a, label: 'Alpha', default: true, current: true, user: { id: inA.user.id, email: ADMIN.email } },
      { id: b, label: 'Beta', default: false, current: false, user: { id: inB.user.id, email: ADMIN.email } },
    ], 'the current environment and the other one signed in to, with their labels and users; not the third');
    t.same((await list(`/api/v1/environments/${b}/auth/environments`, { cookie: both })).map((e) => [e.id, e.current]), [[a, false], [b, true]],
      'asked in the other environment: the same two, that one current');
    t.same((await list('/api/v1/auth/environments', bearer(inA.token))).map((e) => e.id), [a], 'a bearer token alone: its environment only');

    // A cookie named for the third environment but not signed by it, and one of a session that ended.
    const [, valueOfA] = inA.cookie.split('=') as [string, string];
    const forged = `osr-${g}.session_token=${valueOfA}`;
    t.same((await list('/api/v1/auth/environments', { cookie: `${inA.cookie}; ${forged}` })).map((e) => e.id), [a], "another environment's session under the third's name is not a session there");
    t.same((await list('/api/v1/auth/environments', { cookie: `${inA.cookie}; osr-${g}.session_token=garbage.value` })).map((e) => e.id), [a], 'nor is a made-up value');
    const out = await rt.inject({ method: 'POST', url: `/api/v1/environments/${b}/auth/sign-out`, headers: { cookie: inB.cookie } });
    t.equal(out.statusCode, 200, 'signed out of the second environment');
    t.same((await list('/api/v1/auth/environments', { cookie: both })).map((e) => e.id), [a], 'its ended session is not listed');

    const anonymous = await rt.inject({ url: '/api/v1/auth/environments' });
    t.equal(anonymous.statusCode, 401, 'without a credential: 401');
    t.equal(anonymous.json().error.code, 'UNAUTHENTICATED');
    const onlyOther = await rt.inject({ url: `/api/v1/environments/${g}/auth/environments`, headers: { cookie: inA.cookie } });
    t.equal(onlyOther.statusCode, 401, "asked in an environment the request has no session of: 401, nothing listed");
  });
});
