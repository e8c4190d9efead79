/** Sign-in through a real OpenID Connect provider, the provider callback paths, callback URL checks. */
import t from 'tap';
import { APP_ORIGIN, CookieJar, follow } from './browser.ts';
import { eachBackend } from './authHarness.ts';
import { IDP_USER, startIdp } from './oidcIdp.ts';

t.test('OIDC sign-in against a local identity provider', async (t) => {
  const idp = await startIdp([`${APP_ORIGIN}/api/v1/auth/oauth2/callback/test-idp`]);
  t.teardown(() => idp.close());
  process.env.OSR_TEST_IDP_SECRET = idp.clientSecret;
  t.teardown(() => { delete process.env.OSR_TEST_IDP_SECRET; });

  await eachBackend(t, ['main'], async (t, site) => {
    const rt = await site.boot({
      config: { auth: { secret: 'auth-test-secret-0123456789-0123456789-abc', trustedOrigins: ['https://app.example.com'] } },
      auth: {
        oidcProviders: [{ id: 'test-idp', name: 'Test IdP', discoveryUrl: idp.discoveryUrl, clientId: idp.clientId, clientSecretEnv: 'OSR_TEST_IDP_SECRET' }],
        socialProviders: { google: { clientId: 'google-client-id', clientSecret: 'google-client-secret' } },
      },
    });
    const [env] = site.ids as [string];

    const start = (body: object) => rt.inject({ method: 'POST', url: '/api/v1/auth/sign-in/social', payload: body });

    await t.test('start, follow the redirects, land signed in', async (t) => {
      const jar = new CookieJar();
      const loginsBefore = idp.logins;
      const res = await start({ provider: 'test-idp', callbackURL: '/welcome' });
      t.equal(res.statusCode, 200, res.body);
      jar.store(APP_ORIGIN, ([] as string[]).concat(res.headers['set-cookie'] ?? []));
      const authorize = new URL(res.json().url as string);
      t.equal(authorize.origin, idp.issuer, 'sent to the identity provider');
      t.equal(authorize.searchParams.get('redirect_uri'), `${APP_ORIGIN}/api/v1/auth/oauth2/callback/test-idp`, 'the generic callback path');
      t.ok(authorize.searchParams.get('code_challenge'), 'PKCE');

      const hops = await follow(rt, jar, authorize.href, '/welcome');
      const callback = hops.find((h) => h.url.startsWith(`${APP_ORIGIN}/api/v1/auth/oauth2/callback/test-idp?`));
      t.ok(callback, `the provider came back to the callback (${hops.map((h) => `${h.status} ${h.url.slice(0, 80)}`).join(' | ')})`);
      t.equal(callback?.status, 302);
      t.equal(hops.at(-1)!.url, `${APP_ORIGIN}/welcome`, 'and the callback sent the browser to callbackURL');
      t.equal(idp.logins, loginsBefore + 1, 'the provider signed the user in');

      const cookie = jar.get(APP_ORIGIN, `osr-${env}.session_token`);
      t.ok(cookie, 'a session cookie');
      const session = await rt.inject({ url: '/api/v1/auth/get-session', headers: { cookie: `osr-${env}.session_token=${cookie}` } });
      t.equal(session.statusCode, 200);
      t.match(session.json().user, { email: IDP_USER.email, name: IDP_USER.name });
      const keys = await rt.inject({ url: '/api/v1/keys', headers: { cookie: `osr-${env}.session_token=${cookie}` } });
      t.equal(keys.statusCode, 200, 'the session is a valid credential');
      const [account] = await site.query(env, 'select "providerId" as p, "accountId" as a from sys_account where "providerId" = ?', ['test-idp']);
      t.same(account, { p: 'test-idp', a: IDP_USER.sub }, 'the provider account is linked to the user');
    });

    await t.test('a second sign-in reuses the account', async (t) => {
      const jar = new CookieJar();
      const res = await start({ provider: 'test-idp', callbackURL: '/welcome' });
      jar.store(APP_ORIGIN, ([] as string[]).concat(res.headers['set-cookie'] ?? []));
      await follow(rt, jar, res.json().url as string, '/welcome');
      const token = jar.get(APP_ORIGIN, `osr-${env}.session_token`);
      t.ok(token);
      t.equal((await site.query(env, 'select count(*) as n from sys_user where email = ?', [IDP_USER.email]))[0]!.n, site.backend === 'postgres' ? '1' : 1, 'one user');
    });

    await t.test('generic and social callback paths are not interchangeable', async (t) => {
      const wrongKind = await rt.inject({ url: '/api/v1/auth/callback/test-idp?code=x&state=y' });
      t.equal(wrongKind.statusCode, 404, 'a generic provider has no /callback/<id>');
      t.equal(wrongKind.json().error.code, 'ROUTE_NOT_FOUND');
      const social = await rt.inject({ url: '/api/v1/auth/oauth2/callback/google?code=x&state=y' });
      t.equal(social.statusCode, 404, 'a social provider has no /oauth2/callback/<id>');
      const unknown = await rt.inject({ url: '/api/v1/auth/oauth2/callback/nobody?code=x&state=y' });
      t.equal(unknown.statusCode, 404, 'an unknown provider neither');
      const forged = await rt.inject({ url: '/api/v1/auth/oauth2/callback/test-idp?code=x&state=forged' });
      t.equal(forged.statusCode, 302, 'a forged state is refused by a redirect');
      t.match(String(forged.headers.location), /error=/, 'with an error');
      t.notOk(([] as string[]).concat(forged.headers['set-cookie'] ?? []).some((c) => c.includes('session_token=') && !c.includes('Max-Age=0')), 'and no session');

      const google = await start({ provider: 'google', callbackURL: '/welcome' });
      t.equal(google.statusCode, 200, google.body);
      const url = new URL(google.json().url as string);
      t.equal(url.hostname, 'accounts.google.com', 'a built-in social provider');
      t.equal(url.searchParams.get('redirect_uri'), `${APP_ORIGIN}/api/v1/auth/callback/google`, 'with the social callback path');
      const googleCallback = await rt.inject({ url: '/api/v1/auth/callback/google?code=x&state=forged' });
      t.equal(googleCallback.statusCode, 302, 'the social callback is served by the engine');
    });

    await t.test('callback URLs: the own origin and trusted origins only', async (t) => {
      const evil = await start({ provider: 'test-idp', callbackURL: 'https://evil.example.com/steal' });
      t.equal(evil.statusCode, 403, 'an untrusted callbackURL is refused');
      t.match(evil.json(), { error: { code: 'PERMISSION_DENIED', details: { reason: 'INVALID_CALLBACK_URL' } } });
      const evilError = await start({ provider: 'test-idp', callbackURL: '/ok', errorCallbackURL: 'https://evil.example.com/' });
      t.equal(evilError.statusCode, 403, 'an untrusted errorCallbackURL too');
      const protocolRelative = await start({ provider: 'test-idp', callbackURL: '//evil.example.com/steal' });
      t.equal(protocolRelative.statusCode, 403, 'a protocol-relative URL is not a path');
      const trusted = await start({ provider: 'test-idp', callbackURL: 'https://app.example.com/after' });
      t.equal(trusted.statusCode, 200, 'a trusted origin is accepted');
      const reset = await rt.inject({ method: 'POST', url: '/api/v1/auth/request-password-reset', payload: { email: 'x@example.com', redirectTo: 'https://evil.example.com/' } });
      t.equal(reset.statusCode, 403, 'a reset redirect to an untrusted origin is refused');
      const resetLink = await rt.inject({ url: '/api/v1/auth/reset-password/some-token?callbackURL=https%3A%2F%2Fevil.example.com%2F' });
      t.equal(resetLink.statusCode, 403, 'a reset link with an untrusted callback is refused');
      const verify = await rt.inject({ url: '/api/v1/auth/verify-email?token=x&callbackURL=https%3A%2F%2Fevil.example.com%2F' });
      t.equal(verify.statusCode, 403, 'a verification link with an untrusted callback is refused');
      t.equal(evil.headers.location, undefined, 'no redirect anywhere');
    });
  });
});

t.test('with baseURL: per-environment callbacks, and the Host header is not trusted', async (t) => {
  await eachBackend(t, ['main', 'eu'], async (t, site) => {
    const [main, eu] = site.ids as [string, string];
    const app = 'http://app.test';
    const idp = await startIdp([`${app}/api/v1/environments/${eu}/auth/oauth2/callback/test-idp`]);
    t.teardown(() => idp.close());
    const rt = await site.boot({
      auth: {
        baseURL: app,
        oidcProviders: [{ id: 'test-idp', name: 'Test IdP', discoveryUrl: idp.discoveryUrl, clientId: idp.clientId, clientSecret: idp.clientSecret }],
      },
    });
    const jar = new CookieJar();
    const res = await rt.inject({ method: 'POST', url: `/api/v1/environments/${eu}/auth/sign-in/social`, headers: { host: 'app.test' }, payload: { provider: 'test-idp', callbackURL: '/welcome' } });
    t.equal(res.statusCode, 200, res.body);
    jar.store(app, ([] as string[]).concat(res.headers['set-cookie'] ?? []));
    const authorize = new URL(res.json().url as string);
    t.equal(authorize.searchParams.get('redirect_uri'), `${app}/api/v1/environments/${eu}/auth/oauth2/callback/test-idp`, "the environment's own callback");
    const hops = await follow(rt, jar, authorize.href, '/welcome', app);
    t.equal(hops.at(-1)!.url, `${app}/welcome`, `landed (${hops.map((h) => `${h.status} ${h.url.slice(0, 90)}`).join(' | ')})`);
    const cookie = jar.get(app, `osr-${eu}.session_token`);
    t.ok(cookie, "a session cookie of the environment");
    const session = await rt.inject({ url: `/api/v1/environments/${eu}/auth/get-session`, headers: { host: 'app.test', cookie: `osr-${eu}.session_token=${cookie}` } });
    t.equal(session.json()?.user?.email, IDP_USER.email, 'signed in to that environment');
    const count = async (env: string) => Number((await site.query(env, 'select count(*) as n from sys_user where email = ?', [IDP_USER.email]))[0]!.n);
    t.equal(await count(eu), 1, 'the user exists there');
    t.equal(await count(main), 0, 'and not in the other environment');

    const forgedHost = await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-in/social', headers: { host: 'evil.example.com' }, payload: { provider: 'test-idp', callbackURL: 'http://evil.example.com/steal' } });
    t.equal(forgedHost.statusCode, 403, 'a callback to the forged Host is refused: the own origin is baseURL');
    const reset = await rt.inject({ method: 'POST', url: '/api/v1/auth/request-password-reset', headers: { host: 'evil.example.com' }, payload: { email: 'x@example.com', redirectTo: 'http://evil.example.com/' } });
    t.equal(reset.statusCode, 403, 'a reset redirect to the forged Host too');
    const own = await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-in/social', headers: { host: 'evil.example.com' }, payload: { provider: 'test-idp', callbackURL: `${app}/welcome` } });
    t.equal(own.statusCode, 200, 'the public origin is accepted');
  });
});
