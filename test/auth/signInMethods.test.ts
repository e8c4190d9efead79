/** Two-factor TOTP, magic links and the device authorization grant, over HTTP. */
import * as OTPAuth from 'otpauth';
import t, { type Test } from 'tap';
import { linkIn, startSmtpSink } from '../email/smtpSink.ts';
import { bearer, eachBackend, signIn, type Site } from './authHarness.ts';

const USER = { email: 'bob@example.com', password: 'bob-password-1' };
// The server's own origin under inject: browsers send it with cookie-carrying POSTs.
const ORIGIN = { origin: 'http://localhost' };
const cookiesOf = (value: string | string[] | number | undefined) => ([] as string[]).concat((value as string[] | string | undefined) ?? []);
const pairOf = (cookies: string[], part: string) => cookies.find((c) => c.includes(part) && !c.includes('Max-Age=0'))?.split(';')[0];

async function boot(t: Test, site: Site, auth: Record<string, unknown> = {}) {
  const sink = await startSmtpSink();
  t.teardown(() => sink.close());
  const rt = await site.boot({
    auth: { rateLimit: { enabled: false }, ...auth },
    email: { provider: 'smtp', from: 'no-reply@example.com', smtp: { host: '127.0.0.1', port: sink.port } },
  });
  const admin = await signIn(rt);
  const created = await rt.inject({ method: 'POST', url: '/api/v1/auth/admin/create-user', headers: bearer(admin.token), payload: { ...USER, name: 'Bob' } });
  t.equal(created.statusCode, 201, 'user created');
  return { rt, sink };
}

t.test('two-factor TOTP', async (t) => {
  await eachBackend(t, ['main'], async (t, site) => {
    const { rt } = await boot(t, site);
    const [env] = site.ids as [string];
    const first = await signIn(rt, USER.email, USER.password);

    const enable = await rt.inject({ method: 'POST', url: '/api/v1/auth/two-factor/enable', headers: bearer(first.token), payload: { password: USER.password } });
    t.equal(enable.statusCode, 200, enable.body);
    const { totpURI, backupCodes } = enable.json() as { totpURI: string; backupCodes: string[] };
    t.match(totpURI, /^otpauth:\/\/totp\/osr:bob%40example\.com\?/, 'an otpauth URI with the issuer');
    t.equal(backupCodes.length, 10, 'backup codes');
    const totp = OTPAuth.URI.parse(totpURI) as OTPAuth.TOTP;
    const enabled = async () => Boolean((await site.query(env, 'select "twoFactorEnabled" as e from sys_user where email = ?', [USER.email]))[0]!.e);
    t.equal(await enabled(), false, 'not on until a code is verified');

    const wrong = await rt.inject({ method: 'POST', url: '/api/v1/auth/two-factor/verify-totp', headers: bearer(first.token), payload: { code: '000000' === totp.generate() ? '111111' : '000000' } });
    t.equal(wrong.statusCode, 401, 'a wrong code is refused');
    const verify = await rt.inject({ method: 'POST', url: '/api/v1/auth/two-factor/verify-totp', headers: bearer(first.token), payload: { code: totp.generate() } });
    t.equal(verify.statusCode, 200, verify.body);
    t.equal(await enabled(), true, 'two-factor is on');
    const [row] = await site.query(env, 'select secret from sys_two_factor');
    t.notMatch(String(row!.secret), new RegExp(totp.secret.base32), 'the TOTP secret is not stored in clear');

    await t.test('sign-in then needs the second factor', async (t) => {
      const res = await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-in', payload: USER });
      t.equal(res.statusCode, 200);
      t.same(res.json(), { twoFactorRequired: true, methods: ['totp'] }, 'no token, no user');
      const cookies = cookiesOf(res.headers['set-cookie']);
      t.notOk(pairOf(cookies, '.session_token='), 'no session cookie');
      const pending = pairOf(cookies, '.two_factor=');
      t.ok(pending, 'a two-factor cookie');
      t.notOk(res.headers['set-auth-token'], 'no bearer token');

      const engine = await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-in/email', payload: USER });
      t.equal(engine.statusCode, 200);
      t.equal(engine.json().twoFactorRedirect, true, "the engine's own sign-in route needs it too");
      const leaked = engine.headers['set-auth-token'];
      if (leaked) t.equal((await rt.inject({ url: '/api/v1/keys', headers: bearer(String(leaked)) })).statusCode, 401, 'any token it shows is no credential');
      else t.pass('no token');

      const bad = await rt.inject({ method: 'POST', url: '/api/v1/auth/two-factor/verify-totp', headers: { cookie: pending!, ...ORIGIN }, payload: { code: '12345x' } });
      t.ok(bad.statusCode >= 400, `a wrong code: ${bad.statusCode}`);
      const done = await rt.inject({ method: 'POST', url: '/api/v1/auth/two-factor/verify-totp', headers: { cookie: pending!, ...ORIGIN }, payload: { code: totp.generate() } });
      t.equal(done.statusCode, 200, done.body);
      const token = String(done.headers['set-auth-token'] ?? '');
      t.ok(token, 'a bearer token after the second factor');
      t.equal((await rt.inject({ url: '/api/v1/keys', headers: bearer(token) })).statusCode, 200, 'and it works');
      t.equal(done.json().token, token, "the answer's token is the bearer token");
      t.equal((await rt.inject({ url: '/api/v1/keys', headers: bearer(done.json().token) })).statusCode, 200, "the answer's token works as a bearer");

      const replay = await rt.inject({ method: 'POST', url: '/api/v1/auth/two-factor/verify-totp', headers: { cookie: pending!, ...ORIGIN }, payload: { code: totp.generate() } });
      t.equal(replay.statusCode >= 400, true, 'the two-factor cookie is spent');
    });

    await t.test('a backup code works once', async (t) => {
      const res = await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-in', payload: USER });
      const pending = pairOf(cookiesOf(res.headers['set-cookie']), '.two_factor=')!;
      const done = await rt.inject({ method: 'POST', url: '/api/v1/auth/two-factor/verify-backup-code', headers: { cookie: pending, ...ORIGIN }, payload: { code: backupCodes[0] } });
      t.equal(done.statusCode, 200, done.body);
      t.equal((await rt.inject({ url: '/api/v1/keys', headers: bearer(done.json().token) })).statusCode, 200, "the answer's token works as a bearer");
      const again = await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-in', payload: USER });
      const pending2 = pairOf(cookiesOf(again.headers['set-cookie']), '.two_factor=')!;
      const reuse = await rt.inject({ method: 'POST', url: '/api/v1/auth/two-factor/verify-backup-code', headers: { cookie: pending2, ...ORIGIN }, payload: { code: backupCodes[0] } });
      t.ok(reuse.statusCode >= 400, `a used backup code is refused (${reuse.statusCode})`);
    });
  });
});

t.test('magic links', async (t) => {
  await eachBackend(t, ['main'], async (t, site) => {
    const { rt, sink } = await boot(t, site, { magicLink: { enabled: true } });
    const [env] = site.ids as [string];
    const ask = await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-in/magic-link', payload: { email: USER.email, callbackURL: '/home' } });
    t.equal(ask.statusCode, 200, ask.body);
    const mail = await sink.next(USER.email);
    t.equal(mail.subject, 'Your sign-in link');
    const link = new URL(linkIn(mail.text));
    t.equal(link.pathname, `/api/v1/environments/${env}/auth/magic-link/verify`, 'the link addresses the environment');
    const token = link.searchParams.get('token')!;
    const [stored] = await site.query(env, 'select identifier from sys_verification');
    t.notMatch(JSON.stringify(stored), token, 'only a hash of the token is stored');

    const follow = await rt.inject({ url: `${link.pathname}${link.search}` });
    t.equal(follow.statusCode, 302, follow.body);
    t.equal(new URL(String(follow.headers.location), 'http://localhost').pathname, '/home', 'redirected to callbackURL');
    const session = pairOf(cookiesOf(follow.headers['set-cookie']), '.session_token=');
    t.ok(session, 'signed in');
    const me = await rt.inject({ url: '/api/v1/auth/get-session', headers: { cookie: session! } });
    t.equal(me.json().user.email, USER.email);

    const again = await rt.inject({ url: `${link.pathname}${link.search}` });
    t.notOk(pairOf(cookiesOf(again.headers['set-cookie']), '.session_token='), 'the link works once');
    t.match(String(again.headers.location ?? again.body), /error|INVALID|EXPIRED/i, 'and then answers an error');

    const evil = await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-in/magic-link', payload: { email: USER.email, callbackURL: 'https://evil.example.com/' } });
    t.equal(evil.statusCode, 403, 'an untrusted callbackURL is refused');
  });
});

t.test('a magic link keeps the password and sessions of an account an administrator created or imported', async (t) => {
  await eachBackend(t, ['main'], async (t, site) => {
    const { rt, sink } = await boot(t, site, { magicLink: { enabled: true }, signUp: true });
    const [env] = site.ids as [string];
    const works = async (token: string) => (await rt.inject({ url: '/api/v1/keys', headers: bearer(token) })).statusCode;
    const passwordSignIn = async (email: string, password: string) => (await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-in', payload: { email, password } })).statusCode;
    const credentials = async (email: string) => Number((await site.query(env, 'select count(*) as n from sys_account a join sys_user u on u.id = a."userId" where u.email = ? and a."providerId" = ?', [email, 'credential']))[0]!.n);
    /** Asks for a link for `email`, follows it, and answers the new session's cookie. */
    const viaLink = async (email: string) => {
      const ask = await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-in/magic-link', payload: { email, callbackURL: '/home' } });
      t.equal(ask.statusCode, 200, ask.body);
      // A sign-up's verification mail may come first: the link is in the sign-in mail.
      let mail = await sink.next(email);
      while (mail.subject !== 'Your sign-in link') mail = await sink.next(email);
      const link = new URL(linkIn(mail.text));
      const follow = await rt.inject({ url: `${link.pathname}${link.search}` });
      t.equal(follow.statusCode, 302, follow.body);
      const session = pairOf(cookiesOf(follow.headers['set-cookie']), '.session_token=');
      t.ok(session, `${email}: signed in by the link`);
      return session!;
    };

    await t.test('created by an administrator', async (t) => {
      const before = await signIn(rt, USER.email, USER.password);
      const session = await viaLink(USER.email);
      t.equal((await rt.inject({ url: '/api/v1/auth/get-session', headers: { cookie: session } })).json().user.email, USER.email);
      t.equal(await credentials(USER.email), 1, 'the password is still stored');
      t.equal(await passwordSignIn(USER.email, USER.password), 200, 'and signs in');
      t.equal(await works(before.token), 200, 'the session from before the link still works');
    });

    await t.test('imported, with the password chosen through the invitation', async (t) => {
      const admin = await signIn(rt);
      const imported = await rt.inject({ method: 'POST', url: '/api/v1/auth/admin/import-users', headers: bearer(admin.token), payload: { rows: [{ email: 'imported@example.com', name: 'Imp' }] } });
      t.equal(imported.statusCode, 200, imported.body);
      const invite = /(\/api\/v1\/environments\/[^/]+\/auth)\/reset-password\/([A-Za-z0-9_-]+)/.exec((await sink.next('imported@example.com')).text)!;
      const chosen = await rt.inject({ method: 'POST', url: `${invite[1]}/reset-password`, payload: { token: invite[2], newPassword: 'imported-password-1' } });
      t.equal(chosen.statusCode, 200, chosen.body);
      const before = await signIn(rt, 'imported@example.com', 'imported-password-1');
      await viaLink('imported@example.com');
      t.equal(await credentials('imported@example.com'), 1, 'the password is still stored');
      t.equal(await passwordSignIn('imported@example.com', 'imported-password-1'), 200, 'and signs in');
      t.equal(await works(before.token), 200, 'the session from before the link still works');
    });

    await t.test('a self-sign-up account keeps the engine\'s rule: unproven access is removed', async (t) => {
      const up = await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-up/email', payload: { email: 'self@example.com', password: 'self-password-1', name: 'Self' } });
      t.equal(up.statusCode, 200, up.body);
      const before = await signIn(rt, 'self@example.com', 'self-password-1');
      await viaLink('self@example.com');
      t.equal(await credentials('self@example.com'), 0, 'the password set before the email was proven is removed');
      t.equal(await passwordSignIn('self@example.com', 'self-password-1'), 401, 'and no longer signs in');
      t.equal(await works(before.token), 401, 'the session from before the link is ended');
    });
  });
});

t.test('device authorization grant', async (t) => {
  await eachBackend(t, ['main'], async (t, site) => {
    const { rt } = await boot(t, site, { deviceAuthorization: { enabled: true, clientIds: ['tv-app'], interval: 1 } });
    const grant = 'urn:ietf:params:oauth:grant-type:device_code';
    const code = await rt.inject({ method: 'POST', url: '/api/v1/auth/device/code', payload: { client_id: 'tv-app' } });
    t.equal(code.statusCode, 200, code.body);
    const { device_code, user_code, verification_uri, interval } = code.json() as Record<string, string | number>;
    t.ok(device_code && user_code, 'a device code and a user code');
    t.match(String(verification_uri), /\/device$/);
    t.equal(interval, 1);

    const unknown = await rt.inject({ method: 'POST', url: '/api/v1/auth/device/code', payload: { client_id: 'someone-else' } });
    t.equal(unknown.statusCode, 400);
    t.equal(unknown.json().error, 'invalid_client', 'an unknown client is refused, in OAuth terms');

    const poll = () => rt.inject({ method: 'POST', url: '/api/v1/auth/device/token', payload: { grant_type: grant, device_code, client_id: 'tv-app' } });
    const pending = await poll();
    t.equal(pending.statusCode, 400);
    t.equal(pending.json().error, 'authorization_pending', 'pending until the user approves');

    const user = await signIn(rt, USER.email, USER.password);
    const claim = await rt.inject({ url: `/api/v1/auth/device?user_code=${encodeURIComponent(String(user_code))}`, headers: bearer(user.token) });
    t.equal(claim.statusCode, 200, claim.body);
    const approve = await rt.inject({ method: 'POST', url: '/api/v1/auth/device/approve', headers: bearer(user.token), payload: { userCode: user_code } });
    t.equal(approve.statusCode, 200, approve.body);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const granted = await poll();
    t.equal(granted.statusCode, 200, granted.body);
    const accessToken = String(granted.json().access_token);
    t.equal(granted.json().token_type, 'Bearer');
    const keys = await rt.inject({ url: '/api/v1/keys', headers: bearer(accessToken) });
    t.equal(keys.statusCode, 200, 'the device acts as the user');
    const me = await rt.inject({ url: '/api/v1/auth/get-session', headers: bearer(accessToken) });
    t.equal(me.json().user.email, USER.email);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    t.equal((await poll()).statusCode, 400, 'a device code gives one token');
    t.equal((await rt.inject({ url: '/api/v1/keys', headers: bearer(accessToken.split('.')[0]!) })).statusCode, 401, 'the unsigned token is no credential');
  });
});
