/** Sign-in, bearer and cookie sessions, sign-out, expiry, spoofed headers, cookie scope, origins. */
import t from 'tap';
import { ADMIN, bearer, eachBackend, signIn } from './authHarness.ts';

const unauthenticated = { error: { code: 'UNAUTHENTICATED' } };

t.test('sessions', async (t) => {
  await eachBackend(t, ['main'], async (t, site) => {
    const rt = await site.boot();
    const [env] = site.ids;

    await t.test('sign-in answers a bearer token and the user, and sets a session cookie', async (t) => {
      const { token, cookie, user, res } = await signIn(rt);
      t.match(token, /^[A-Za-z0-9]+\.[A-Za-z0-9+/=_-]+$/, 'a signed token');
      t.match(user, { email: ADMIN.email, role: 'admin', mustChangePassword: false });
      t.notOk('password' in user, 'no password in the user');
      t.ok(cookie.startsWith(`osr-${env}.session_token=`), 'the cookie name carries the environment');
      const set = ([] as string[]).concat(res.headers['set-cookie'] ?? []).join('\n');
      t.notMatch(set, /domain=/i, 'host-only cookie: no Domain attribute');
      t.match(set, /HttpOnly/, 'HttpOnly');
      t.notMatch(set, /Secure/, 'not Secure outside production');

      const viaBearer = await rt.inject({ url: '/api/v1/keys', headers: bearer(token) });
      t.equal(viaBearer.statusCode, 200, 'the token works as a bearer token');
      const viaCookie = await rt.inject({ url: '/api/v1/keys', headers: { cookie } });
      t.equal(viaCookie.statusCode, 200, 'the cookie works');
      const session = await rt.inject({ url: '/api/v1/auth/get-session', headers: bearer(token) });
      t.equal(session.json().user.email, ADMIN.email, "the engine's get-session route is mounted");
      const unsigned = await rt.inject({ url: '/api/v1/keys', headers: bearer(token.split('.')[0]!) });
      t.equal(unsigned.statusCode, 401, 'the session id without its signature is refused');
    });

    await t.test('a wrong password is 401 with the engine reason, and no token', async (t) => {
      const res = await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-in', payload: { email: ADMIN.email, password: 'wrong-password' } });
      t.equal(res.statusCode, 401);
      t.match(res.json(), { error: { code: 'UNAUTHENTICATED', details: { reason: 'INVALID_EMAIL_OR_PASSWORD' } } });
      t.notOk(res.headers['set-cookie'], 'no cookie');
      const unknown = await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-in', payload: { email: 'nobody@example.com', password: 'whatever-1' } });
      t.equal(unknown.statusCode, 401, 'an unknown account answers the same');
      t.same(unknown.json().error.details, res.json().error.details);
    });

    await t.test("the engine's errors come back in our envelope", async (t) => {
      const res = await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-in/email', payload: { email: 'not-an-email', password: 'x' } });
      t.equal(res.statusCode, 400);
      t.match(res.json(), { error: { code: 'VALIDATION_ERROR', details: { reason: 'INVALID_EMAIL' } } });
      const signUp = await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-up/email', payload: { email: 'new@example.com', password: 'password-123', name: 'n' } });
      t.equal(signUp.statusCode, 400, 'self sign-up is off by default');
      t.equal(signUp.json().error.details.reason, 'EMAIL_PASSWORD_SIGN_UP_DISABLED');
    });

    await t.test('sign-out revokes the session: the token is then refused', async (t) => {
      const { token } = await signIn(rt);
      t.equal((await rt.inject({ url: '/api/v1/keys', headers: bearer(token) })).statusCode, 200, 'works (and is cached)');
      const out = await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-out', headers: bearer(token) });
      t.equal(out.statusCode, 200);
      t.same(out.json(), { success: true });
      t.match(([] as string[]).concat(out.headers['set-cookie'] ?? []).join(';'), /session_token=; Max-Age=0/, 'the cookie is cleared');
      const after = await rt.inject({ url: '/api/v1/keys', headers: bearer(token) });
      t.equal(after.statusCode, 401, 'refused right after sign-out');
      t.match(after.json(), unauthenticated);
    });

    await t.test('sign-out by cookie revokes the cookie session', async (t) => {
      const { cookie } = await signIn(rt);
      const out = await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-out', headers: { cookie } });
      t.equal(out.statusCode, 200);
      t.equal((await rt.inject({ url: '/api/v1/keys', headers: { cookie } })).statusCode, 401);
    });

    await t.test('an expired session is 401', async (t) => {
      const { token } = await signIn(rt);
      const sessionToken = token.split('.')[0];
      await site.query(env!, 'update sys_session set "expiresAt" = ? where token = ?', [site.backend === 'sqlite' ? '2000-01-01T00:00:00.000Z' : new Date('2000-01-01'), sessionToken]);
      const res = await rt.inject({ url: '/api/v1/keys', headers: bearer(token) });
      t.equal(res.statusCode, 401);
      t.match(res.json(), unauthenticated);
    });

    await t.test('anonymous calls to non-public routes are 401; spoofed identity headers are ignored', async (t) => {
      const { user } = await signIn(rt);
      t.equal((await rt.inject({ url: '/api/v1/keys' })).statusCode, 401, 'anonymous');
      for (const headers of [{ 'x-user-id': String(user.id) }, { 'x-user-email': ADMIN.email, 'x-auth-user': String(user.id) }, { authorization: `User ${String(user.id)}` }]) {
        const res = await rt.inject({ url: '/api/v1/keys', headers });
        t.equal(res.statusCode, 401, `${Object.keys(headers).join(', ')} alone is anonymous`);
      }
      const created = await rt.inject({ method: 'POST', url: '/api/v1/auth/admin/create-user', headers: bearer((await signIn(rt)).token), payload: { email: 'plain@example.com', password: 'plain-password-1' } });
      t.equal(created.statusCode, 201);
      const plain = await signIn(rt, 'plain@example.com', 'plain-password-1');
      const spoofed = await rt.inject({ method: 'POST', url: '/api/v1/auth/admin/create-user', headers: { ...bearer(plain.token), 'x-user-id': String(user.id) }, payload: { email: 'x@example.com' } });
      t.equal(spoofed.statusCode, 403, 'a plain user claiming the admin id stays a plain user');
      t.match(spoofed.json(), { error: { code: 'PERMISSION_DENIED', details: { permission: 'users:admin', subjectId: plain.user.id } } });
    });

    await t.test('origins: untrusted browsers are refused, clients without Origin work', async (t) => {
      const evil = await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-in', headers: { origin: 'https://evil.example' }, payload: ADMIN });
      t.equal(evil.statusCode, 403);
      t.match(evil.json(), { error: { code: 'PERMISSION_DENIED', details: { reason: 'INVALID_ORIGIN' } } });
      t.notOk(evil.headers['set-cookie'], 'no session for the untrusted origin');
      const own = await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-in', headers: { origin: 'http://localhost' }, payload: ADMIN });
      t.equal(own.statusCode, 200, "the server's own origin is trusted");
      const { token } = await signIn(rt);
      const passthrough = await rt.inject({ method: 'POST', url: '/api/v1/auth/revoke-other-sessions', headers: { ...bearer(token), origin: 'https://evil.example' }, payload: {} });
      t.equal(passthrough.statusCode, 403, "the engine's routes check the origin too");
    });
  });
});

t.test('configured trusted origins, and Secure cookies in production', async (t) => {
  await eachBackend(t, ['prod'], async (t, site) => {
    const rt = await site.boot({ config: { auth: { secret: 'auth-test-secret-0123456789-0123456789-abc', admin: ADMIN, trustedOrigins: ['https://app.example.com'] } }, env: { NODE_ENV: 'production' } });
    const res = await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-in', headers: { origin: 'https://app.example.com' }, payload: ADMIN });
    t.equal(res.statusCode, 200, 'a configured origin is trusted');
    const set = ([] as string[]).concat(res.headers['set-cookie'] ?? []).join('\n');
    t.match(set, new RegExp(`__Secure-osr-${site.ids[0]}\\.session_token=`), 'secure cookie name');
    t.match(set, /; Secure/, 'Secure attribute');
    t.notMatch(set, /domain=/i, 'still host-only');
    const other = await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-in', headers: { origin: 'https://other.example.com' }, payload: ADMIN });
    t.equal(other.statusCode, 403);
  });
});
