/** Pure parts of the provider sign-in: callback routing, provider options, device token signing. */
import { createHmac } from 'node:crypto';
import t from 'tap';
import { authOptionsSchema } from '../../plugins/auth/authOptions.ts';
import { oauthCallbackRoute, rateFamilyOf } from '../../plugins/auth/authPaths.ts';
import { signDeviceToken } from '../../plugins/auth/deviceToken.ts';
import { oauthParts } from '../../plugins/auth/oauthProviders.ts';

const corp = { id: 'corp', name: 'Corp', discoveryUrl: 'https://sso.example.com/.well-known/openid-configuration', clientId: 'osr' };

t.test('oauthCallbackRoute keeps generic and social callbacks apart', async (t) => {
  const generic = new Set(['corp']);
  t.equal(oauthCallbackRoute('/oauth2/callback/corp', generic), '/callback/corp', 'a generic callback is served by the engine callback');
  t.equal(oauthCallbackRoute('/oauth2/callback/google', generic), null, 'no generic path for a social provider');
  t.equal(oauthCallbackRoute('/callback/corp', generic), null, 'no social path for a generic provider');
  t.equal(oauthCallbackRoute('/callback/google', generic), '/callback/google', 'social callbacks pass');
  t.equal(oauthCallbackRoute('/get-session', generic), '/get-session', 'other paths pass');
  t.equal(oauthCallbackRoute('/oauth2/callback/corp/extra', generic), '/oauth2/callback/corp/extra', 'only the exact shape is rewritten');
});

t.test('second factors and sign-in links are rate limited as sign-in', async (t) => {
  t.equal(rateFamilyOf('/two-factor/verify-totp'), 'signIn');
  t.equal(rateFamilyOf('/two-factor/verify-backup-code'), 'signIn');
  t.equal(rateFamilyOf('/magic-link/verify'), 'signIn');
  t.equal(rateFamilyOf('/two-factor/enable'), null);
});

t.test('provider options', async (t) => {
  const options = authOptionsSchema.parse({ oidcProviders: [corp] });
  t.same(options.oidcProviders[0], { ...corp, scopes: ['openid', 'email', 'profile'], pkce: true, signUp: true }, 'defaults');
  t.throws(() => authOptionsSchema.parse({ oidcProviders: [{ ...corp, id: 'google' }] }), /social provider/, 'a generic id may not shadow a social one');
  t.throws(() => authOptionsSchema.parse({ oidcProviders: [corp, corp] }), /unique/, 'ids are unique');
  t.throws(() => authOptionsSchema.parse({ oidcProviders: [{ ...corp, extra: 1 }] }), 'unknown keys are refused');
  t.throws(() => authOptionsSchema.parse({ socialProviders: { myspace: { clientId: 'x' } } }), 'unknown social providers are refused');

  const fromEnv = authOptionsSchema.parse({ oidcProviders: [{ ...corp, clientSecretEnv: 'CORP_SECRET' }], socialProviders: { github: { clientId: 'gh', clientSecret: 'shh' } } });
  t.throws(() => oauthParts(fromEnv, '/api/v1/auth', {}), { code: 'CONFIG_INVALID', details: { path: 'plugins.auth.oidcProviders[0]' } }, 'a missing secret variable fails the boot');
  const parts = oauthParts(fromEnv, '/api/v1/auth', { CORP_SECRET: 'from-env' });
  t.equal(parts.plugins.length, 2, 'the generic plugin and its callback paths');
  t.match(parts.socialProviders, { github: { clientId: 'gh', clientSecret: 'shh', disableSignUp: true } }, 'social sign-up follows plugins.auth.signUp');
  t.notOk('redirectURI' in (parts.socialProviders as Record<string, object>).github!, 'no fixed redirect URI without baseURL');

  const withBase = oauthParts(authOptionsSchema.parse({ baseURL: 'https://app.example.com/', socialProviders: { github: { clientId: 'gh' } } }), '/api/v1/environments/eu/auth', {});
  t.match(withBase.socialProviders, { github: { redirectURI: 'https://app.example.com/api/v1/environments/eu/auth/callback/github' } }, 'with baseURL: absolute, per environment');
  t.same(oauthParts(authOptionsSchema.parse({}), '/api/v1/auth', {}).plugins, [], 'no providers, no plugins');
});

t.test('signDeviceToken signs the access token as the engine signs bearer tokens', async (t) => {
  const response = new Response(JSON.stringify({ access_token: 'abc', token_type: 'Bearer' }), { status: 200, headers: { 'content-type': 'application/json' } });
  const signed = await (await signDeviceToken(response, 'secret')).json() as { access_token: string; token_type: string };
  t.equal(signed.access_token, `abc.${createHmac('sha256', 'secret').update('abc').digest('base64')}`);
  t.equal(signed.token_type, 'Bearer', 'the rest is kept');
  const error = new Response(JSON.stringify({ error: 'authorization_pending' }), { status: 400 });
  t.equal(await signDeviceToken(error, 'secret'), error, 'errors pass unchanged');
});
