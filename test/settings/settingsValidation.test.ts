/**
 * A settings PUT is checked by the resolver that reads the namespace (docs/settings.md): the
 * `email` values, merged over the config file as mail will read them, go through
 * resolveEmailSettings; what it cannot use is refused with 400 VALIDATION_ERROR naming the path,
 * and nothing is stored. A secret kept from before counts, as it will when mail is sent.
 */
import t from 'tap';
import { bearer, eachBackend, signIn } from '../auth/authHarness.ts';

const VARIABLES = ['SMTP_HOST', 'SMTP_PORT', 'SMTP_USER', 'SMTP_PASSWORD', 'EMAIL_FROM'];

t.test('email settings the mail resolver cannot use are refused, naming the path', async (t) => {
  const saved = Object.fromEntries(VARIABLES.map((name) => [name, process.env[name]]));
  for (const name of VARIABLES) delete process.env[name];
  t.teardown(() => {
    for (const [name, value] of Object.entries(saved)) if (value !== undefined) process.env[name] = value;
  });
  await eachBackend(t, ['settingscheck'], async (t, site) => {
    // The config file names no server: development's log provider, until settings choose one.
    const rt = await site.boot({ email: {} });
    const admin = (await signIn(rt)).token;
    const put = (payload: unknown) => rt.inject({ method: 'PUT', url: '/api/v1/settings/email', headers: bearer(admin), payload: payload as object });
    const refusals = [
      { body: { provider: 'smtp' }, path: 'smtp.host', reason: 'the SMTP host is not set' },
      { body: { smtp: { host: 'mail.tenant.example' } }, path: 'from', reason: 'the sender address is not set' },
      { body: { from: 'noreply@tenant.example', smtp: { host: 'mail.tenant.example', user: 'tenant' } }, path: 'smtp.password', reason: "the password of SMTP user 'tenant' is not set" },
    ];
    for (const { body, path, reason } of refusals) {
      const res = await put(body);
      t.equal(res.statusCode, 400, `${JSON.stringify(body)}: 400`);
      t.equal(res.json().error.code, 'VALIDATION_ERROR');
      t.same(res.json().error.details.errors, [{ path, message: reason }], `names ${path}`);
    }
    const stored = await rt.inject({ url: '/api/v1/settings/email', headers: bearer(admin) });
    t.same([stored.json().values, stored.json().revision], [null, 0], 'nothing was stored');

    const complete = await put({ from: 'noreply@tenant.example', smtp: { host: 'mail.tenant.example', user: 'tenant', password: 'tenant-password-1' } });
    t.equal(complete.statusCode, 200, 'a server with its sender and login is accepted');
    const edited = await put({ from: 'mail@tenant.example', smtp: { host: 'mail.tenant.example', user: 'tenant' } });
    t.equal(edited.statusCode, 200, 'the password kept from before counts');
    t.same([edited.json().revision, edited.json().secrets], [2, { 'smtp.password': { set: true } }], 'stored, its password kept');
    const cleared = await put({ from: 'mail@tenant.example', smtp: { host: 'mail.tenant.example', user: 'tenant', password: null } });
    t.same([cleared.statusCode, cleared.json().error?.details?.errors], [400, [{ path: 'smtp.password', message: "the password of SMTP user 'tenant' is not set" }]], 'clearing the password a login needs is refused');
    const schema = await put({ smtp: { port: 'x' } });
    t.same([schema.statusCode, schema.json().error.details.errors[0].path], [400, 'smtp.port'], 'the schema is still checked first');
  });
});
