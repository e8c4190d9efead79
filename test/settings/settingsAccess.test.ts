/**
 * The guards of GET/PUT /settings/:namespace on both drivers, in one process: tenant admins only
 * (a member 403, no credential 401, an identity header nothing); a secret is write-only (answers
 * show `{ set: true }`, never the value, and a read answer put back keeps it); at rest it is sealed
 * (AES-256-GCM, `v1.`), never in plain in any table.
 */
import t from 'tap';
import { bearer, eachBackend, signIn } from '../auth/authHarness.ts';
import { addUser } from '../access/accessWorld.ts';

const PASSWORD = 'settings-guard-Pa55word-9c1e';

t.test('settings: admins only, secrets write-only and sealed', async (t) => {
  await eachBackend(t, ['settings-guards'], async (t, site) => {
    const rt = await site.boot({ email: { provider: 'smtp', from: 'noreply@example.com', smtp: { host: '127.0.0.1', port: 2525 } }, config: { api: { requireAuth: true } } });
    const [env] = site.ids as [string];
    const admin = await signIn(rt);
    const member = await addUser(rt, admin.token, 'Member');
    const answers: string[] = [];
    const send = async (method: 'GET' | 'PUT', headers: Record<string, string>, payload?: unknown) => {
      const res = await rt.inject({ method, url: '/api/v1/settings/email', headers, ...(payload === undefined ? {} : { payload: payload as object }) });
      answers.push(res.body);
      return res;
    };

    await t.test('tenant admins only', async (t) => {
      for (const [what, res] of [['a member reads', await send('GET', bearer(member.token))], ['a member writes', await send('PUT', bearer(member.token), { smtp: { host: 'evil.example' } })]] as const) {
        t.equal(res.statusCode, 403, `${what}: 403`);
        t.equal(res.json().error.code, 'PERMISSION_DENIED');
      }
      const anonymous = await send('GET', {});
      t.equal(anonymous.statusCode, 401, 'no credential: 401');
      const spoofed = await send('PUT', { 'x-user-id': String(admin.user.id), 'x-user-roles': 'admin' }, { smtp: { host: 'evil.example' } });
      t.equal(spoofed.statusCode, 401, 'an identity header is no credential');
      t.equal((await send('GET', bearer(admin.token))).json().revision, 0, 'nothing was written');
    });

    await t.test('a secret is write-only and sealed at rest', async (t) => {
      const put = await send('PUT', bearer(admin.token), { smtp: { host: '127.0.0.1', port: 2526, user: 'mailer', password: PASSWORD } });
      t.equal(put.statusCode, 200, put.body);
      t.same(put.json().values, { smtp: { host: '127.0.0.1', port: 2526, user: 'mailer', password: { set: true } } }, 'the answer shows only that a password is set');
      const read = await send('GET', bearer(admin.token));
      t.same(read.json().values.smtp.password, { set: true }, 'a read too');
      t.same(read.json().secrets, { 'smtp.password': { set: true } });
      const back = await send('PUT', bearer(admin.token), { ...read.json().values, smtp: { ...read.json().values.smtp, port: 2527 } });
      t.equal(back.statusCode, 200);
      t.same(back.json().secrets, { 'smtp.password': { set: true } }, 'a read answer put back keeps the password');
      t.notOk(answers.some((body) => body.includes(PASSWORD)), 'no answer holds the password');

      const rows = await site.query(env, 'select * from osr_settings');
      t.equal(rows.length, 1);
      t.match(String(rows[0]!.sealed_json), /"smtp\.password":"v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+"/, 'sealed (AES-256-GCM, v1)');
      t.notOk(JSON.stringify(rows).includes(PASSWORD), 'the settings table holds it only sealed');
      t.notOk((await site.dump(env)).includes(PASSWORD), 'no table holds it in plain');
    });
  });
});
