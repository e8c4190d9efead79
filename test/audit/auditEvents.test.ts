/**
 * One audit event per audited action the runtime serves here (auth, users, access, sharing rules,
 * overlays, exports), on both drivers, and no password, code, token or key in any row.
 */
import t from 'tap';
import { linkIn, startSmtpSink } from '../email/smtpSink.ts';
import { addUser, sendAs } from '../access/accessWorld.ts';
import { ADMIN, bearer, eachBackend, signIn } from '../auth/authHarness.ts';

type Row = Record<string, unknown>;
const parse = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v);
const DAY = 86_400_000;
const iso = (days: number) => new Date(Date.now() + days * DAY).toISOString();

t.test('audited actions', async (t) => {
  await eachBackend(t, ['audit-ev'], async (t, site) => {
    const sink = await startSmtpSink();
    t.teardown(() => sink.close());
    const rt = await site.boot({
      auth: { rateLimit: { enabled: false } },
      email: { provider: 'smtp', from: 'no-reply@example.com', smtp: { host: '127.0.0.1', port: sink.port } },
      config: { apps: ['test/access/fixtures/app'] },
    });
    const env = site.ids[0]!;
    const admin = await signIn(rt);
    const as = (token: string, method: string, url: string, payload?: unknown) => sendAs(rt, token, method, url, payload);
    const must = async (token: string, method: string, url: string, payload: unknown, status: number) => {
      const res = await as(token, method, url, payload);
      t.equal(res.status, status, `${method} ${url}: ${JSON.stringify(res.body).slice(0, 300)}`);
      return res.body;
    };
    const secrets: string[] = [ADMIN.password, admin.token];
    const events = async (action: string): Promise<Row[]> => site.query(env, 'select * from sys_audit_event where action = ? order by occurred_at, id', [action]);

    const alice = await addUser(rt, admin.token, 'Alice');
    const bob = await addUser(rt, admin.token, 'Bob');
    secrets.push('pw-Alice-0123456789', 'pw-Bob-0123456789', alice.token, bob.token);

    await t.test('password change and reset', async (t) => {
      const newPassword = 'alice-new-password-77';
      secrets.push(newPassword);
      await must(alice.token, 'POST', '/api/v1/auth/change-password', { currentPassword: 'pw-Alice-0123456789', newPassword }, 200);
      const changed = await events('auth.password_changed');
      t.match(changed, [{ actor_id: alice.id, outcome: 'success', ip: '127.0.0.1' }]);

      const asked = await rt.inject({ method: 'POST', url: '/api/v1/auth/request-password-reset', payload: { email: 'bob@example.com' } });
      t.equal(asked.statusCode, 200);
      const link = new URL(linkIn((await sink.next('bob@example.com')).text));
      const followed = await rt.inject({ url: `${link.pathname}${link.search}` });
      const token = new URL(String(followed.headers.location), 'http://x').searchParams.get('token')!;
      const resetPassword = 'bob-reset-password-88';
      secrets.push(token, resetPassword);
      const reset = await rt.inject({ method: 'POST', url: '/api/v1/auth/reset-password', payload: { token, newPassword: resetPassword } });
      t.equal(reset.statusCode, 200, reset.body);
      t.match(await events('auth.password_reset'), [{ actor_kind: 'anonymous', outcome: 'success' }]);
    });

    await t.test('two-factor enabled and disabled', async (t) => {
      const session = await signIn(rt, 'alice@example.com', 'alice-new-password-77');
      secrets.push(session.token);
      const enable = await rt.inject({ method: 'POST', url: '/api/v1/auth/two-factor/enable', headers: bearer(session.token), payload: { password: 'alice-new-password-77' } });
      t.equal(enable.statusCode, 200, enable.body);
      const { totpURI, backupCodes } = enable.json() as { totpURI: string; backupCodes: string[] };
      secrets.push(new URL(totpURI).searchParams.get('secret')!, ...backupCodes);
      const disable = await rt.inject({ method: 'POST', url: '/api/v1/auth/two-factor/disable', headers: bearer(session.token), payload: { password: 'alice-new-password-77' } });
      t.equal(disable.statusCode, 200, disable.body);
      const rows = await events('auth.two_factor_changed');
      t.same(rows.map((r) => [r.actor_id, parse(r.after).change]), [[alice.id, 'enable'], [alice.id, 'disable']]);
    });

    await t.test('users banned and imported', async (t) => {
      await must(admin.token, 'POST', '/api/v1/auth/admin/ban-user', { userId: bob.id, banReason: 'spam' }, 200);
      t.match(await events('user.banned'), [{ target_id: bob.id, actor_id: String(admin.user.id) }]);
      const imported = await must(admin.token, 'POST', '/api/v1/auth/admin/import-users', { rows: [{ email: 'imp1@example.com', name: 'Imp One' }, { email: 'imp2@example.com' }], passwordPolicy: 'auto' }, 200);
      for (const row of imported.rows) if (row.temporaryPassword) secrets.push(row.temporaryPassword);
      const rows = await events('user.imported');
      t.equal(rows.length, 1);
      t.match(parse(rows[0]!.after), { created: 2, updated: 0, emails: ['imp1@example.com', 'imp2@example.com'] });
      const dry = await must(admin.token, 'POST', '/api/v1/auth/admin/import-users', { rows: [{ email: 'imp3@example.com' }], dryRun: true }, 200);
      t.equal(dry.dryRun, true);
      t.equal((await events('user.imported')).length, 1, 'a dry run changes nothing and records nothing');
    });

    await t.test('delegations and sharing rules', async (t) => {
      const position = await must(admin.token, 'POST', '/api/v1/data/sys_position', { name: 'cover', delegatable: true }, 201);
      await must(admin.token, 'POST', '/api/v1/data/sys_user_position', { user_id: alice.id, position: position.id }, 201);
      const delegation = await must(alice.token, 'POST', '/api/v1/data/sys_user_position', { user_id: bob.id, position: position.id, valid_from: iso(0), valid_until: iso(5), reason: 'holiday' }, 201);
      const rows = await events('delegation.changed');
      t.equal(rows.length, 1);
      t.match(rows[0], { actor_id: alice.id, target_type: 'sys_user_position', target_id: delegation.id });
      t.match(parse(rows[0]!.after), { delegated_by: alice.id, reason: 'holiday', user_id: bob.id });
      const rule = { name: 'eu_to_cover', object: 'doc', kind: 'criteria', criteria: { region: 'EU' }, recipient_type: 'position', recipient_id: position.id, access: 'read' };
      await must(admin.token, 'POST', '/api/v1/sharing/rules', rule, 201);
      await must(admin.token, 'DELETE', '/api/v1/sharing/rules/eu_to_cover', undefined, 204);
      const ruleEvents = await events('sharing_rule.changed');
      t.same(ruleEvents.map((r) => [r.target_label, parse(r.before) === null, parse(r.after) === null]), [['eu_to_cover', true, false], ['eu_to_cover', false, true]], 'created, then deleted');
      t.equal(ruleEvents[0]!.ip, '127.0.0.1');
    });

    await t.test('metadata overlays', async (t) => {
      await must(admin.token, 'POST', '/api/v1/meta/object/labels/doc', { label: 'Document' }, 200);
      await must(admin.token, 'DELETE', '/api/v1/meta/object/labels/doc', undefined, 204);
      const rows = await events('metadata.overlay_changed');
      t.same(rows.map((r) => [r.target_type, r.target_id, parse(r.after).change]), [['object.labels', 'doc', 'upsert'], ['object.labels', 'doc', 'remove']]);
    });

    await t.test('exports: object, format, row count', async (t) => {
      for (const title of ['A', 'B', 'C']) await must(admin.token, 'POST', '/api/v1/data/doc', { title, secret: 'hidden' }, 201);
      const res = await rt.inject({ method: 'POST', url: '/api/v1/data/doc/export', headers: bearer(admin.token), payload: { format: 'csv' } });
      t.equal(res.statusCode, 200);
      let rows: Row[] = [];
      for (let i = 0; i < 100 && rows.length === 0; i++) {
        rows = await events('data.exported');
        if (rows.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      t.match(rows, [{ target_type: 'object', target_id: 'doc', actor_id: String(admin.user.id), outcome: 'success' }]);
      t.same(parse(rows[0]!.after), { object: 'doc', format: 'csv', rows: 3 });
    });

    await t.test('no audit row holds a password, code, token or key the test used', async (t) => {
      const rows = await site.query(env, 'select * from sys_audit_event');
      const dump = JSON.stringify(rows);
      t.ok(rows.length >= 15, `${rows.length} events`);
      for (const secret of secrets) t.notOk(dump.includes(secret), `no row holds ${secret.slice(0, 4)}…`);
    });
  });
});
