/** `osr doctor`'s settings line: per namespace, whether the config file and which variables provide values. */
import t from 'tap';
import { checkSettings } from '../../cli/checkSettings.ts';

t.test('the auth namespace lists the variables its providers read their secrets from', async (t) => {
  const config = { plugins: { auth: { oidcProviders: [{ id: 'corp', clientSecretEnv: 'CORP_SECRET' }], socialProviders: { github: { clientSecretEnv: 'GITHUB_SECRET' } } } } };
  const check = checkSettings(config, { CORP_SECRET: 'x', GITHUB_SECRET: '', SMTP_HOST: 'mail' });
  t.match(check.detail, /auth: config file yes, variables CORP_SECRET;/, 'the set variable a provider names');
  t.match(check.detail, /email: config file no, variables SMTP_HOST;/);
  t.match(checkSettings({ plugins: {} }, { CORP_SECRET: 'x' }).detail, /auth: config file no, variables none/, 'nothing named, nothing listed');
});
