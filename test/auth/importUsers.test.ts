/** Bulk import of users: limits, dry runs, upserts, delivery of a way in, never a password reset. */
import ExcelJS from 'exceljs';
import t from 'tap';
import type { EmailMessage } from '../../capabilities/emailSend.ts';
import { definePlugin, type AnyPlugin } from '../../kernel/index.ts';
import { bearer, eachBackend, signIn, type Site } from './authHarness.ts';

function mailbox(): { plugin: AnyPlugin; sent: EmailMessage[] } {
  const sent: EmailMessage[] = [];
  const plugin = definePlugin({
    name: 'test-mail', version: '1.0.0', kernel: '^16.0.0', provides: ['email.send'],
    register(ctx) {
      ctx.provide('email.send', {
        async send(message) {
          if (message.to.startsWith('bounce')) throw new Error('mailbox unavailable');
          sent.push(message);
        },
      });
    },
  });
  return { plugin, sent };
}

const rows = (n: number, domain = 'bulk.example.com') => Array.from({ length: n }, (_, i) => ({ email: `user${i}@${domain}`, name: `User ${i}` }));
const count = async (site: Site, sql: string, params: unknown[] = []) => Number((await site.query(site.ids[0]!, sql, params))[0]!.n);

t.test('import with an email service', async (t) => {
  await eachBackend(t, ['main'], async (t, site) => {
    const mail = mailbox();
    const rt = await site.boot({ plugins: [mail.plugin] });
    const admin = await signIn(rt);
    const post = (payload: object) => rt.inject({ method: 'POST', url: '/api/v1/auth/admin/import-users', headers: bearer(admin.token), payload });

    await t.test('500 rows in a dry run: a full report, nothing written or sent', async (t) => {
      const res = await post({ rows: rows(500), dryRun: true });
      t.equal(res.statusCode, 200);
      const body = res.json();
      t.equal(body.dryRun, true);
      t.same(body.summary, { created: 500, updated: 0, skipped: 0, errors: 0, delivery: { invite_email: 500, invite_sms: 0, temporary_password: 0, none: 0 } });
      t.same(body.rows[0], { row: 1, email: 'user0@bulk.example.com', action: 'create', delivery: 'invite_email' });
      t.equal(await count(site, 'select count(*) as n from sys_user'), 1, 'only the admin exists');
      t.equal(await count(site, 'select count(*) as n from sys_verification'), 0, 'no invitation token');
      t.equal(mail.sent.length, 0, 'no mail');
    });

    await t.test('500 rows for real: created and invited', async (t) => {
      const started = Date.now();
      const res = await post({ rows: rows(500) });
      t.equal(res.statusCode, 200);
      t.same(res.json().summary, { created: 500, updated: 0, skipped: 0, errors: 0, delivery: { invite_email: 500, invite_sms: 0, temporary_password: 0, none: 0 } });
      t.comment(`500 invited users in ${Date.now() - started} ms`);
      t.equal(await count(site, 'select count(*) as n from sys_user'), 501);
      t.equal(await count(site, 'select count(*) as n from sys_account'), 1, 'invited users have no password yet');
      t.equal(mail.sent.length, 500);
      t.match(mail.sent[0]!.text, new RegExp(`/api/v1/environments/${site.ids[0]}/auth/reset-password/[A-Za-z0-9_-]+`));
      const again = await post({ rows: rows(500) });
      t.same(again.json().summary.skipped, 500, 'a second run changes nothing');
      t.equal(mail.sent.length, 500, 'and invites nobody again');
    });

    await t.test('an invitation lets the user choose a password', async (t) => {
      mail.sent.length = 0;
      await post({ rows: [{ email: 'invited@example.com' }] });
      const link = /(\/api\/v1\/environments\/[^/]+\/auth)\/reset-password\/([A-Za-z0-9_-]+)/.exec(mail.sent[0]!.text)!;
      const set = await rt.inject({ method: 'POST', url: `${link[1]}/reset-password`, payload: { token: link[2], newPassword: 'chosen-password-1' } });
      t.equal(set.statusCode, 200);
      const session = await signIn(rt, 'invited@example.com', 'chosen-password-1');
      t.equal(session.user.mustChangePassword, false);
      const reuse = await rt.inject({ method: 'POST', url: `${link[1]}/reset-password`, payload: { token: link[2], newPassword: 'another-password-1' } });
      t.equal(reuse.statusCode, 400, 'the link works once');
    });

    await t.test('501 rows are refused, whatever the format', async (t) => {
      const res = await post({ rows: rows(501), dryRun: true });
      t.equal(res.statusCode, 400);
      t.same(res.json().error, { code: 'IMPORT_TOO_LARGE', message: 'The import holds 501 rows; at most 500 are accepted per request. Split it into smaller files.', details: { count: 501, max: 500 } });
      const csv = ['email', ...rows(501, 'csv.example.com').map((r) => r.email)].join('\n');
      t.equal((await post({ csv })).json().error.code, 'IMPORT_TOO_LARGE');
      t.equal(await count(site, "select count(*) as n from sys_user where email like '%csv.example.com'"), 0);
    });

    await t.test("an existing user's password is never reset", async (t) => {
      await rt.inject({ method: 'POST', url: '/api/v1/auth/admin/create-user', headers: bearer(admin.token), payload: { email: 'kept@example.com', password: 'kept-password-1' } });
      const before = await site.query(site.ids[0]!, 'select a.password from sys_account a join sys_user u on u.id = a."userId" where u.email = ?', ['kept@example.com']);
      mail.sent.length = 0;
      const res = await post({ rows: [{ email: 'kept@example.com', name: 'Renamed' }, { email: 'KEPT@example.com', name: 'Again' }] });
      t.same(res.json().rows[0], { row: 1, email: 'kept@example.com', action: 'update', delivery: 'none' });
      t.match(res.json().rows[1], { action: 'error', errors: [{ field: 'email', message: 'repeats row 1' }] });
      const after = await site.query(site.ids[0]!, 'select a.password, u.name from sys_account a join sys_user u on u.id = a."userId" where u.email = ?', ['kept@example.com']);
      t.equal(after[0]!.password, before[0]!.password, 'same hash');
      t.equal(after[0]!.name, 'Renamed');
      t.equal(mail.sent.length, 0, 'no invitation for an existing user');
      await signIn(rt, 'kept@example.com', 'kept-password-1');
    });

    await t.test('a failed invitation leaves no half-created user', async (t) => {
      const res = await post({ rows: [{ email: 'bounce@example.com' }, { email: 'fine@example.com' }] });
      t.match(res.json().rows, [{ action: 'error', delivery: 'none', errors: [{ field: 'row', message: /mailbox unavailable/ }] }, { action: 'create', delivery: 'invite_email' }]);
      t.equal(await count(site, 'select count(*) as n from sys_user where email = ?', ['bounce@example.com']), 0);
    });
  });
});

t.test('import without an email service', async (t) => {
  await eachBackend(t, ['main'], async (t, site) => {
    const rt = await site.boot();
    const admin = await signIn(rt);
    const post = (payload: object) => rt.inject({ method: 'POST', url: '/api/v1/auth/admin/import-users', headers: bearer(admin.token), payload });

    await t.test("'auto': unreachable rows get a temporary password, returned once", async (t) => {
      const res = await post({ csv: 'Email;Full Name;Phone\n"a@x.example.com";"Doe; Jane";+49 151 1234567\n;Phone Only;+44 20 7946 0000\n' });
      t.equal(res.statusCode, 200);
      const [a, phoneOnly] = res.json().rows;
      t.match(a, { row: 1, email: 'a@x.example.com', action: 'create', delivery: 'temporary_password' });
      t.match(phoneOnly, { row: 2, email: '442079460000@phone.invalid', action: 'create', delivery: 'temporary_password' });
      t.same(res.json().summary.delivery, { invite_email: 0, invite_sms: 0, temporary_password: 2, none: 0 });
      const dump = await site.dump(site.ids[0]!);
      t.ok(dump.includes('Doe; Jane') && dump.includes('+491511234567'), 'name and normalized phone stored');
      t.notOk(dump.includes(a.temporaryPassword) || dump.includes(phoneOnly.temporaryPassword), 'no temporary password in the database');
      const session = await signIn(rt, 'a@x.example.com', a.temporaryPassword);
      t.equal(session.user.mustChangePassword, true);
      t.equal((await rt.inject({ url: '/api/v1/keys', headers: bearer(session.token) })).statusCode, 403, 'PASSWORD_EXPIRED until changed');
    });

    await t.test("'none' creates identities only; dry runs return no password", async (t) => {
      const dry = await post({ rows: [{ email: 'dry@example.com' }], dryRun: true });
      t.same(dry.json().rows[0], { row: 1, email: 'dry@example.com', action: 'create', delivery: 'temporary_password' });
      const res = await post({ rows: [{ email: 'bare@example.com' }], passwordPolicy: 'none' });
      t.same(res.json().rows[0], { row: 1, email: 'bare@example.com', action: 'create', delivery: 'none' });
      t.equal(await count(site, 'select count(*) as n from sys_account a join sys_user u on u.id = a."userId" where u.email = ?', ['bare@example.com']), 0, 'no credential');
    });

    await t.test('upsert by phone, and row errors', async (t) => {
      const res = await post({
        upsertBy: 'phone',
        rows: [
          { phone: '+49 151 1234567', name: 'Jane by phone' },
          { phone: '+1 202 555 0100', email: 'new-by-phone@example.com' },
          { email: 'no-phone@example.com' },
          { phone: '12345' },
          { phone: '+1 202 555 0100' },
          { phone: '+33 1 23 45 67 89', email: 'a@x.example.com' },
          { phone: '+49 151 1234567', email: 'other@example.com' },
        ],
      });
      t.equal(res.statusCode, 200);
      const r = res.json().rows;
      t.match(r[0], { action: 'update', delivery: 'none' });
      t.match(r[1], { action: 'create', email: 'new-by-phone@example.com' });
      t.match(r[2], { action: 'error', errors: [{ field: 'phone', message: 'is required when upsertBy is phone' }] });
      t.match(r[3], { action: 'error', errors: [{ field: 'phone' }] });
      t.match(r[4], { action: 'error', errors: [{ field: 'phone', message: 'repeats row 2' }] });
      t.match(r[5], { action: 'error', errors: [{ field: 'email', message: 'belongs to another account' }] });
      t.match(r[6], { action: 'error', errors: [{ field: 'phone', message: 'repeats row 1' }] });
      t.same(res.json().summary, { created: 1, updated: 1, skipped: 0, errors: 5, delivery: { invite_email: 0, invite_sms: 0, temporary_password: 1, none: 6 } });
    });

    await t.test('xlsx, and requests refused as a whole', async (t) => {
      const workbook = new ExcelJS.Workbook();
      const sheet = workbook.addWorksheet('Users');
      sheet.addRow(['E-mail', 'Name']);
      sheet.addRow(['sheet1@example.com', 'Sheet One']);
      sheet.addRow(['sheet2@example.com', 'Sheet Two']);
      const xlsx = Buffer.from(await workbook.xlsx.writeBuffer()).toString('base64');
      const res = await post({ xlsx, dryRun: true });
      t.same(res.json().rows.map((r: { email: string }) => r.email), ['sheet1@example.com', 'sheet2@example.com']);
      for (const [payload, summary] of [
        [{ rows: [{ email: 'x@example.com', role: 'admin' }] }, /unknown column\(s\) 'role'/],
        [{ rows: [], csv: 'email' }, /exactly one of rows, csv or xlsx/],
        [{}, /exactly one of rows, csv or xlsx/],
        [{ xlsx: 'bm90IGEgd29ya2Jvb2s=' }, /not a readable .xlsx/],
        [{ csv: 'name\nNobody' }, /needs an email or a phone column/],
      ] as const) {
        const bad = await post(payload);
        t.equal(bad.statusCode, 400);
        t.match(bad.json().error, { code: 'VALIDATION_ERROR', details: { summary } });
      }
    });
  });
});
