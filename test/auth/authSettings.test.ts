/** Pure core of the `auth` settings namespace: an environment's providers over the config file's (docs/settings.md). */
import t from 'tap';
import { authOptionsSchema } from '../../plugins/auth/authOptions.ts';
import { authSettingsOptions, resolveAuthSettings } from '../../plugins/auth/authSettings.ts';

const corp = { id: 'corp', name: 'Corp', discoveryUrl: 'https://sso.operator.example/.well-known/openid-configuration', clientId: 'osr' };
const base = authOptionsSchema.parse({
  signUp: true,
  oidcProviders: [{ ...corp, clientSecretEnv: 'OPERATOR_CORP_SECRET' }],
  socialProviders: { google: { clientId: 'operator-google', clientSecretEnv: 'OPERATOR_GOOGLE_SECRET', scopes: ['drive'] }, github: { clientId: 'operator-github', clientSecret: 'operator-github-secret' } },
});

t.test('no provider in the settings: the config file as it is', async (t) => {
  t.same(authSettingsOptions(base, {}), base);
});

t.test('a provider list replaces the file list; a generic provider gets only the secret set with it', async (t) => {
  const options = authSettingsOptions(base, { oidcProviders: [{ ...corp, discoveryUrl: 'https://sso.tenant.example/.well-known/openid-configuration' }] });
  t.same(options.oidcProviders, [{ ...corp, discoveryUrl: 'https://sso.tenant.example/.well-known/openid-configuration', scopes: ['openid', 'email', 'profile'], pkce: true, signUp: true }],
    "the same id at the tenant's issuer: no clientSecretEnv of the operator's, no secret at all");
  t.same(options.socialProviders, base.socialProviders, "the file's social providers stay");
  t.same(authSettingsOptions(base, { oidcProviders: [] }).oidcProviders, [], 'an empty list removes them');
});

t.test("social providers merge by id; one set here keeps none of the file's secrets", async (t) => {
  const options = authSettingsOptions(base, { socialProviders: { google: { clientId: 'tenant-google', clientSecret: 'tenant-google-secret' } } });
  t.same(options.socialProviders.google, { clientId: 'tenant-google', clientSecret: 'tenant-google-secret', scopes: ['drive'] }, "its own client and secret, the file's other keys");
  t.same(options.socialProviders.github, base.socialProviders.github, 'another provider of the file is left as it is');
  t.same(options.oidcProviders, base.oidcProviders, "the file's generic providers stay");
  t.throws(() => resolveAuthSettings(base, { socialProviders: { github: { clientId: 'tenant-github' } } }),
    { code: 'CONFIG_INVALID', details: { path: 'socialProviders.github.clientSecret' } }, "the file's secret does not count for a provider set here");
  t.throws(() => authSettingsOptions(base, { oidcProviders: [{ ...corp, clientSecretEnv: 'OPERATOR_CORP_SECRET' }] }), 'settings name no variable');
});
