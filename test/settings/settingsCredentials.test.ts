/**
 * A tenant admin's `email` settings never reach the process's own credentials: no environment
 * variable can be named (`passwordEnv` is no settings key), and a server chosen in settings gets
 * only the login given in settings, never the config file's or SMTP_USER / SMTP_PASSWORD.
 */
import t from 'tap';
import { settingsOptions } from '../../plugins/email/environmentProviders.ts';
import { emailOptionsSchema } from '../../plugins/email/emailOptions.ts';
import { resolveEmailSettings } from '../../plugins/email/resolveEmailSettings.ts';
import { NAMESPACES } from '../../plugins/settings/settingsNamespaces.ts';

const base = emailOptionsSchema.parse({ provider: 'smtp', from: 'noreply@example.com', smtp: { host: 'mail.operator.example', user: 'operator', password: 'operator-password', passwordEnv: 'OPERATOR_SMTP_PW' } });

t.test('settings cannot name an environment variable', async (t) => {
  const named = NAMESPACES.email.schema.safeParse({ smtp: { host: 'evil.example', user: 'x', passwordEnv: 'OS_AUTH_SECRET' } });
  t.equal(named.success, false, 'smtp.passwordEnv is refused');
  t.ok(NAMESPACES.email.schema.safeParse({ smtp: { host: 'mail.tenant.example', user: 'x', password: 'y' } }).success, 'a login of its own is accepted');
});

t.test('a server chosen in settings gets only the login given in settings', async (t) => {
  const saved = { SMTP_USER: process.env.SMTP_USER, SMTP_PASSWORD: process.env.SMTP_PASSWORD, OPERATOR_SMTP_PW: process.env.OPERATOR_SMTP_PW };
  process.env.SMTP_USER = 'env-user';
  process.env.SMTP_PASSWORD = 'env-password';
  process.env.OPERATOR_SMTP_PW = 'operator-env-password';
  t.teardown(() => {
    for (const [key, value] of Object.entries(saved)) if (value === undefined) delete process.env[key]; else process.env[key] = value;
  });
  const { options, env } = settingsOptions(base, { smtp: { host: 'evil.example' } });
  const resolved = resolveEmailSettings(options, env, true);
  t.equal(resolved.provider, 'smtp');
  t.equal(resolved.provider === 'smtp' ? resolved.smtp.host : null, 'evil.example', 'the chosen host');
  t.equal(resolved.provider === 'smtp' ? resolved.smtp.auth : 'none', null, 'no login at all: neither the config file\'s nor the environment\'s');
  t.notOk(JSON.stringify({ options, env: [env.SMTP_USER, env.SMTP_PASSWORD, env.OPERATOR_SMTP_PW] }).match(/operator-password|env-password|operator-env-password|env-user/), 'no operator credential is passed on');

  const own = settingsOptions(base, { smtp: { host: 'mail.tenant.example', user: 'tenant', password: 'tenant-password' } });
  const tenant = resolveEmailSettings(own.options, own.env, true);
  t.same(tenant.provider === 'smtp' ? tenant.smtp.auth : null, { user: 'tenant', pass: 'tenant-password' }, 'the login given in settings');

  const portOnly = settingsOptions(base, { smtp: { port: 2525 } });
  const kept = resolveEmailSettings(portOnly.options, portOnly.env, true);
  t.same(kept.provider === 'smtp' ? [kept.smtp.host, kept.smtp.port, kept.smtp.auth] : null, ['mail.operator.example', 2525, { user: 'operator', pass: 'operator-password' }], 'the operator\'s own server keeps its login');
});
