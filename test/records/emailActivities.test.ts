import t from 'tap';
import { eachBackend, type Site } from '../auth/authHarness.ts';
import { startSmtpSink } from '../email/smtpSink.ts';
import { recordsWorld } from './recordsWorld.ts';

/**
 * Emails sent about a record, on both drivers: a record flow's email step mails through a real SMTP
 * server; each send leaves a sys_email_log row (sent, or failed when the server refuses) that never
 * holds the body, and the record's timeline shows it as an `email` item: to readers of the record
 * only (404 otherwise), with the recipients for admins and the sender and a count for the others,
 * paged by cursor together with the other kinds.
 */

const FROM = 'OSR <no-reply@example.com>';
const BODY_MARKER = 'BODY-ONLY-7f3e';
const pause = () => new Promise((resolve) => setTimeout(resolve, 20));

interface Item { kind: string; at: string; by: string | null; summary: string; ref: Record<string, string>; data: Record<string, unknown> }

/** The log rows of a record once there are `count` of them (the flow runs in the background). */
async function logRows(site: Site, recordId: string, count: number): Promise<Array<Record<string, unknown>>> {
  for (let i = 0; i < 500; i += 1) {
    const rows = await site.query(site.ids[0]!, 'select * from sys_email_log where record_id = ? order by sent_at', [recordId]);
    if (rows.length >= count) return rows;
    await pause();
  }
  throw new Error(`no ${count} email log row(s) for ${recordId}`);
}

t.test('emails about a record', async (t) => {
  await eachBackend(t, ['emailacts'], async (t, site) => {
    const sink = await startSmtpSink({ reject: ['bounce@example.com'] });
    t.teardown(() => sink.close());
    const w = await recordsWorld(t, site, {
      config: {
        apps: ['test/records/fixtures/app', 'test/records/fixtures/emails'],
        plugins: {
          email: { provider: 'smtp', from: FROM, smtp: { host: '127.0.0.1', port: sink.port } },
          'notify-probe': { path: 'test/notifications/fixtures/notify-probe', grants: ['notifications.send', 'http.routes'] },
        },
      },
    });

    // A record flow mails when the claim names a contact: one delivered, one refused by the server.
    const claim = await w.must(w.as('m1', 'POST', '/api/v1/data/claim', { title: 'Broken pipe', contact: 'ada@example.com', code: 'C-1' }));
    const mail = await sink.next('ada@example.com');
    t.equal(mail.subject, 'Claim: Broken pipe');
    t.match(mail.text, /Your code is C-1 BODY-ONLY-7f3e/, 'the body went out');
    const [sent] = await logRows(site, claim.id, 1);
    await pause();
    await w.must(w.as('m1', 'POST', `/api/v1/data/claim/${claim.id}/comments`, { body: 'Looking into it' }));
    await pause();
    await w.must(w.as('m1', 'PATCH', `/api/v1/data/claim/${claim.id}`, { contact: 'bounce@example.com', code: 'C-2' }), 200);
    const rows = await logRows(site, claim.id, 2);
    const failed = rows[1]!;

    // The stored rows: who, what, when, status and provider id; never the body.
    t.same(Object.keys(sent!).filter((k) => !['id', 'created_at', 'updated_at', 'created_by', 'updated_by', 'version', 'owner_id', 'organization_id', 'deleted_at'].includes(k)).sort(),
      ['error', 'message_id', 'object', 'recipients', 'record_id', 'sent_at', 'sent_by', 'status', 'subject'], 'no body, html or attachment column');
    t.match(sent, { object: 'claim', record_id: claim.id, subject: 'Claim: Broken pipe', status: 'sent', sent_by: null, error: null });
    t.same(typeof sent!.recipients === 'string' ? JSON.parse(sent!.recipients) : sent!.recipients, ['ada@example.com']);
    t.match(String(sent!.message_id), /^<.+@.+>$/, 'the provider message id');
    t.match(failed, { object: 'claim', record_id: claim.id, subject: 'Claim: Broken pipe', status: 'failed', message_id: null, error: 'SERVICE_UNAVAILABLE' });
    t.equal(sink.mails.length, 1, 'the refused one was not delivered');
    t.notOk((await site.dump(site.ids[0]!)).includes(BODY_MARKER), 'the body is stored nowhere');

    t.equal((await w.as('admin', 'GET', '/api/v1/data/sys_email_log')).status, 404, 'the log is not served under /data, not even to an admin');

    // An email without a record leaves no row.
    await w.must(w.as('admin', 'POST', '/api/v1/email/send', { to: 'plain@example.com', subject: 'No record', text: 'x' }), 200);
    t.equal((await site.query(site.ids[0]!, 'select id from sys_email_log')).length, 2, 'only the two about the claim');

    // The admin sees both emails among the other kinds, with their recipients.
    const url = `/api/v1/data/claim/${claim.id}/activities`;
    const admin = (await w.must(w.as('admin', 'GET', url), 200)) as { items: Item[]; nextCursor: string | null };
    t.same(admin.items.map((i) => i.kind), ['email', 'history', 'comment', 'email', 'history'], 'every kind, newest first');
    t.match(admin.items[0], { kind: 'email', by: null, summary: 'Email failed: Claim: Broken pipe', ref: { emailId: String(failed.id) }, data: { subject: 'Claim: Broken pipe', status: 'failed', error: 'SERVICE_UNAVAILABLE', recipientCount: 1, recipients: ['bounce@example.com'], messageId: null } });
    t.match(admin.items[3], { kind: 'email', summary: 'Email sent: Claim: Broken pipe', ref: { emailId: String(sent!.id) }, data: { status: 'sent', recipientCount: 1, recipients: ['ada@example.com'], messageId: sent!.message_id } });
    t.notOk(JSON.stringify(admin).includes(BODY_MARKER), 'no body in the answer');

    // The owner reads the record but neither sent the mails nor is an admin: the count, not the addresses.
    const owner = (await w.must(w.as('m1', 'GET', url), 200)) as { items: Item[] };
    const mails = owner.items.filter((i) => i.kind === 'email');
    t.equal(mails.length, 2);
    for (const item of mails) {
      t.same(Object.keys(item.data).sort(), item.data.status === 'failed' ? ['error', 'recipientCount', 'status', 'subject'] : ['recipientCount', 'status', 'subject']);
      t.notOk(JSON.stringify(item).includes('@example.com'), 'no address in an email item');
    }
    t.equal(mails[1]!.data.recipientCount, 1);

    // A member who cannot read the record: 404, as for a missing one, and no sign of the emails.
    const hidden = await w.as('m2', 'GET', url);
    t.equal(hidden.status, 404);
    t.equal(hidden.body.error.code, 'NOT_FOUND');
    t.notOk(JSON.stringify(hidden.body).includes('Claim:'));
    // The same on an object without history, whose timeline reads no source as the caller: the record check alone guards it.
    const notice = await w.must(w.as('m1', 'POST', '/api/v1/data/notice', { title: 'Closure', contact: 'bob@example.com' }));
    await logRows(site, notice.id, 1);
    t.same((await w.must(w.as('m1', 'GET', `/api/v1/data/notice/${notice.id}/activities`), 200)).items.map((i: Item) => i.summary), ['Email sent: Notice: Closure'], 'its owner sees the email');
    const hiddenNotice = await w.as('m2', 'GET', `/api/v1/data/notice/${notice.id}/activities`);
    t.equal(hiddenNotice.status, 404, 'a member who cannot read it: 404');
    t.equal(hiddenNotice.body.error.code, 'NOT_FOUND');
    t.notOk(JSON.stringify(hiddenNotice.body).includes('Notice:'));

    // POST /email/send with `about`: only about a record the caller can read; the sender then sees the recipients.
    const mailers = await w.must(w.as('admin', 'POST', '/api/v1/data/sys_permission_set', { name: 'mailers', permissions: ['email:send'] }));
    for (const m of ['m1', 'm2'] as const) await w.must(w.as('admin', 'POST', '/api/v1/data/sys_user_permission_set', { user_id: w.users[m].id, permission_set: mailers.id }));
    const delivered = sink.mails.length;
    const sneaky = await w.as('m2', 'POST', '/api/v1/email/send', { to: 'eve@example.com', subject: 'Sneaky', text: 'x', about: { object: 'notice', recordId: notice.id } });
    t.equal(sneaky.status, 404, 'about a record the caller cannot read: 404');
    t.equal(sneaky.body.error.code, 'NOT_FOUND');
    t.equal((await w.as('m1', 'POST', '/api/v1/email/send', { to: 'eve@example.com', subject: 'S', text: 'x', about: { object: 'sys_email_log', recordId: notice.id } })).status, 404, 'an engine-owned object is no record to mail about');
    t.equal(sink.mails.length, delivered, 'nothing was sent');
    await w.must(w.as('m1', 'POST', '/api/v1/email/send', { to: 'carol@example.com', subject: 'By hand', text: `Hello ${BODY_MARKER}`, about: { object: 'notice', recordId: notice.id } }), 200);
    const byHand = (await site.query(site.ids[0]!, 'select * from sys_email_log where record_id = ? and subject = ?', [notice.id, 'By hand']))[0]!;
    t.match(byHand, { object: 'notice', status: 'sent', sent_by: w.users.m1.id });
    t.equal((await site.query(site.ids[0]!, 'select id from sys_email_log where subject = ?', ['Sneaky'])).length, 0, 'no row for the refused one');
    const senderView = (await w.must(w.as('m1', 'GET', `/api/v1/data/notice/${notice.id}/activities`), 200)).items as Item[];
    t.match(senderView[0], { kind: 'email', by: w.users.m1.id, summary: 'Email sent: By hand', data: { recipients: ['carol@example.com'], recipientCount: 1 } }, 'the sender sees the recipients of its mail');
    t.notOk('recipients' in senderView[1]!.data, 'but not those of the flow\'s mail');
    t.notOk(JSON.stringify(senderView).includes(BODY_MARKER), 'no body in the answer');
    t.notOk((await site.dump(site.ids[0]!)).includes(BODY_MARKER), 'nor in the database');

    // A notification about a record mails about it; one about an engine-owned or unknown object leaves no row.
    const position = await w.must(w.as('admin', 'POST', '/api/v1/data/sys_position', { name: 'clerk' }));
    for (const record of [{ object: 'notice', id: notice.id }, { object: 'sys_position', id: position.id }, { object: 'opportunity', id: '42' }]) {
      const notified = await w.as('admin', 'POST', '/api/v1/probe/notify', { to: { emails: ['dan@example.com'] }, channels: ['email'], title: `Heads up ${record.object}`, body: `Look ${BODY_MARKER}`, record });
      t.same(notified.body.results.map((r: { status: string }) => r.status), ['sent'], `${record.object}: the mail went`);
    }
    const notifiedRows = await site.query(site.ids[0]!, "select object, record_id, subject, sent_by, status from sys_email_log where subject like 'Heads up%'");
    t.same(notifiedRows, [{ object: 'notice', record_id: notice.id, subject: 'Heads up notice', sent_by: null, status: 'sent' }], 'only the one about an app record');
    const ownerNotice = (await w.must(w.as('m1', 'GET', `/api/v1/data/notice/${notice.id}/activities`), 200)).items as Item[];
    t.match(ownerNotice[0], { kind: 'email', by: null, summary: 'Email sent: Heads up notice', data: { recipientCount: 1 } });
    t.notOk(JSON.stringify(ownerNotice).includes('dan@example.com'), 'its recipient hidden from a reader who did not send it');

    // A record deleted for good takes its email log with it.
    const gone = await w.must(w.as('m1', 'POST', '/api/v1/data/notice', { title: 'Short-lived', contact: 'gus@example.com' }));
    await logRows(site, gone.id, 1);
    await w.must(w.as('admin', 'DELETE', `/api/v1/data/notice/${gone.id}`), 204);
    t.same(await site.query(site.ids[0]!, 'select id from sys_email_log where record_id = ?', [gone.id]), [], 'its rows are gone');
    t.ok((await site.query(site.ids[0]!, 'select id from sys_email_log where record_id = ?', [notice.id])).length > 0, "another record's stay");

    // Paging across the mixed kinds joins into the whole timeline, at every page size.
    for (const size of [1, 2, 3]) {
      const walked: Item[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page = (await w.must(w.as('admin', 'GET', `${url}?limit=${size}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`), 200)) as { items: Item[]; nextCursor: string | null };
        walked.push(...page.items);
        cursor = page.nextCursor;
        pages += 1;
      } while (cursor && pages < 10);
      t.equal(pages, Math.ceil(5 / size), `${size} per page`);
      t.same(walked, admin.items, `pages of ${size} join into the whole timeline`);
    }
  });
});
