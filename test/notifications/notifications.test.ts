/** notifications.send and the inbox routes, on SQLite and PostgreSQL, with a real SMTP server. */
import t from 'tap';
import type { DataDatabase } from '../../capabilities/dataDatabase.ts';
import type { RetentionRegister } from '../../capabilities/retentionRegister.ts';
import { databaseCases } from '../harness/databases.ts';
import { bootNotify } from './notificationsFixture.ts';

for (const driver of await databaseCases()) {
  await t.test(`${driver.name}: in_app and email to two users, each reads only its own`, { skip: driver.skip }, async (t) => {
    const s = await bootNotify(t, driver.name);
    const { ada, bob, admin } = s;

    t.equal((await s.send('GET', '/api/v1/notifications', null)).status, 401, 'anonymous GET: 401');
    t.equal((await s.send('POST', '/api/v1/notifications/read-all', null)).status, 401, 'anonymous read-all: 401');
    t.equal((await s.send('POST', '/api/v1/notifications/x/read', null)).status, 401, 'anonymous read: 401');

    const sent = await s.notify({
      to: { userIds: [ada.id, bob.id] }, channels: ['in_app', 'email'],
      title: 'Deal won', body: 'Acme signed: body-marker-7731', link: '/app/crm/opportunity/42', record: { object: 'opportunity', id: '42' },
    });
    t.equal(sent.status, 200, JSON.stringify(sent.body));
    const results = sent.body.results as Array<{ recipient: { value: string }; channel: string; status: string; notificationId?: string }>;
    t.same(results.map((r) => [r.recipient.value, r.channel, r.status]).sort(), [
      [ada.id, 'email', 'sent'], [ada.id, 'in_app', 'sent'], [bob.id, 'email', 'sent'], [bob.id, 'in_app', 'sent'],
    ].sort(), 'one result per recipient and channel');

    for (const person of [ada, bob]) {
      const mail = await s.sink.next(person.email);
      t.equal(mail.subject, 'Deal won', `${person.email}: the title is the subject`);
      t.match(mail.text, /Acme signed: body-marker-7731/, 'the body is the text');
      t.match(mail.text, /\/app\/crm\/opportunity\/42/, 'with the link');
    }

    const adaList = await s.send('GET', '/api/v1/notifications', ada);
    t.equal(adaList.status, 200);
    t.equal(adaList.body.items.length, 1, 'ada sees one');
    const adaId = results.find((r) => r.recipient.value === ada.id && r.channel === 'in_app')!.notificationId!;
    const bobId = results.find((r) => r.recipient.value === bob.id && r.channel === 'in_app')!.notificationId!;
    t.match(adaList.body.items[0], { id: adaId, title: 'Deal won', body: 'Acme signed: body-marker-7731', link: '/app/crm/opportunity/42', record: { object: 'opportunity', id: '42' }, source: 'notify-probe', read: false, readAt: null });
    const bobList = await s.send('GET', '/api/v1/notifications', bob);
    t.same(bobList.body.items.map((n: { id: string }) => n.id), [bobId], 'bob sees only his');
    t.same((await s.send('GET', '/api/v1/notifications', admin)).body.items, [], 'the admin who sent it has none');

    const foreign = await s.send('POST', `/api/v1/notifications/${bobId}/read`, ada);
    t.equal(foreign.status, 404, "reading another user's notification is 404");
    t.equal(foreign.body.error.code, 'NOT_FOUND');
    t.equal((await s.send('POST', `/api/v1/notifications/${bobId}/read`, admin)).status, 404, 'for an admin too');
    t.equal((await s.send('GET', '/api/v1/notifications?unread=true', bob)).body.items.length, 1, "bob's is still unread");

    const read = await s.send('POST', `/api/v1/notifications/${adaId}/read`, ada);
    t.equal(read.status, 200);
    t.match(read.body, { id: adaId, read: true, readAt: /^\d{4}-/ });
    t.same((await s.send('GET', '/api/v1/notifications?unread=true', ada)).body.items, [], 'no unread left for ada');
    t.equal((await s.send('GET', '/api/v1/notifications', ada)).body.items[0].read, true, 'listed as read');

    const later = await s.notify({ to: { userIds: [ada.id] }, channels: ['in_app'], title: 'Later', body: 'second' });
    const laterId = later.body.results[0].notificationId as string;
    const all = await s.send('POST', '/api/v1/notifications/read-all', bob);
    t.same(all.body, { updated: 1 });
    t.same((await s.send('POST', '/api/v1/notifications/read-all', bob)).body, { updated: 0 }, 'nothing left to mark');
    t.same((await s.send('GET', '/api/v1/notifications?unread=true', bob)).body.items, []);
    t.same((await s.send('GET', '/api/v1/notifications?unread=true', ada)).body.items.map((n: { id: string }) => n.id), [laterId], "bob's read-all left ada's unread");

    const page = await s.send('GET', '/api/v1/notifications?limit=1', ada);
    t.same(page.body.items.map((n: { id: string }) => n.id), [laterId], 'newest first, one per page');
    t.equal(page.body.total, 2);
    const next = await s.send('GET', `/api/v1/notifications?limit=1&cursor=${encodeURIComponent(page.body.nextCursor)}`, ada);
    t.same(next.body.items.map((n: { id: string }) => n.id), [adaId], 'the cursor reads on');
    t.equal((await s.send('GET', '/api/v1/notifications?limit=101', ada)).status, 400, 'at most 100 per page');

    t.notMatch(s.logs.join(''), /body-marker-7731/, 'the body is in no log line');
  });

  await t.test(`${driver.name}: sys_notification through /data is owner-private and read-only`, { skip: driver.skip }, async (t) => {
    const s = await bootNotify(t, driver.name);
    const { ada, bob, admin } = s;
    const sent = await s.notify({ to: { userIds: [ada.id, bob.id] }, channels: ['in_app'], title: 'Hi', body: 'there' });
    const [adaId, bobId] = [ada, bob].map((p) => sent.body.results.find((r: { recipient: { value: string } }) => r.recipient.value === p.id).notificationId as string);

    const adaRows = await s.send('GET', '/api/v1/data/sys_notification', ada);
    t.equal(adaRows.status, 200, JSON.stringify(adaRows.body));
    t.same(adaRows.body.items.map((r: { id: string }) => r.id), [adaId], 'a member lists its own row only');
    t.equal((await s.send('GET', `/api/v1/data/sys_notification/${bobId}`, ada)).status, 404, "another's row is 404");
    const adminRows = await s.send('GET', '/api/v1/data/sys_notification', admin);
    t.same(adminRows.body.items, [], 'an admin does not read the others\' rows either');
    const counted = await s.send('POST', '/api/v1/data/sys_notification/query', admin, { where: {} });
    t.equal(counted.status, 200, JSON.stringify(counted.body));
    t.equal(counted.body.total, 0, "the admin's count holds none of the others' rows");

    const write = await s.send('PATCH', `/api/v1/data/sys_notification/${adaId}`, ada, { read_at: new Date().toISOString() });
    t.equal(write.status, 403);
    t.equal(write.body.error.code, 'SYSTEM_OBJECT_READ_ONLY', 'its owner cannot write it through /data');
    const create = await s.send('POST', '/api/v1/data/sys_notification', admin, { title: 'forged', body: 'x' });
    t.equal(create.body.error.code, 'SYSTEM_OBJECT_READ_ONLY', 'nor can an admin create one');
    t.equal((await s.send('DELETE', `/api/v1/data/sys_notification/${adaId}`, admin)).status, 403);
  });

  await t.test(`${driver.name}: sms without an SMS plugin is unavailable, in_app still succeeds`, { skip: driver.skip }, async (t) => {
    const s = await bootNotify(t, driver.name);
    const { ada } = s;
    const sent = await s.notify({ to: { userIds: [ada.id, 'no-such-user'], phones: ['+4915112345678'] }, channels: ['in_app', 'sms'], title: 'Reminder', body: 'Call back' });
    t.equal(sent.status, 200, JSON.stringify(sent.body));
    t.same(sent.body.results.map((r: { recipient: { kind: string; value: string }; channel: string; status: string }) => [r.recipient.kind, r.recipient.value, r.channel, r.status]), [
      ['user', 'no-such-user', 'in_app', 'unknown_user'],
      ['user', 'no-such-user', 'sms', 'unknown_user'],
      ['user', ada.id, 'in_app', 'sent'],
      ['user', ada.id, 'sms', 'unavailable'],
      ['phone', '+4915112345678', 'sms', 'unavailable'],
    ]);
    t.equal((await s.send('GET', '/api/v1/notifications', ada)).body.items.length, 1, 'the in-app row was written');
  });

  await t.test(`${driver.name}: with requireAuth off and the SMS log provider`, { skip: driver.skip }, async (t) => {
    const s = await bootNotify(t, driver.name, { api: { requireAuth: false }, sms: { provider: 'log' } });
    const { ada } = s;
    const sent = await s.notify({ to: { userIds: [ada.id], phones: ['+4915112345678'], emails: ['Carol@Example.com'] }, channels: ['in_app', 'sms'], title: 'Reminder', body: 'sms-marker-5521' });
    t.same(sent.body.results.map((r: { recipient: { value: string }; channel: string; status: string }) => [r.recipient.value, r.channel, r.status]), [
      [ada.id, 'in_app', 'sent'],
      [ada.id, 'sms', 'no_address'],
      ['+4915112345678', 'sms', 'sent'],
    ], 'a user without a phone number has no address; a raw email is not contacted without the email channel');
    const anonymous = await s.send('GET', '/api/v1/notifications', null);
    t.equal(anonymous.status, 401, 'the inbox needs a user even when requireAuth is off');
    t.equal(anonymous.body.error.code, 'UNAUTHENTICATED');
    t.equal((await s.send('POST', '/api/v1/notifications/read-all', null)).status, 401);
    const rows = await s.send('GET', '/api/v1/data/sys_notification', null);
    t.equal(rows.status, 200);
    t.same(rows.body.items, [], 'an anonymous /data read holds no notification');
    t.notMatch(s.logs.join(''), /sms-marker-5521/, 'the body is in no log line');

    // A phone-only account: its placeholder address reaches nobody, its number does.
    const imported = await s.send('POST', '/api/v1/auth/admin/import-users', s.admin, { rows: [{ phone: '+44 20 7946 0000', name: 'Phone Only' }] });
    t.equal(imported.status, 200, JSON.stringify(imported.body));
    const database = s.rt.runtime.kernel.service<DataDatabase>('data.database')!;
    const [phoneUser] = await database.withDatabase(s.environmentId, ({ knex }) => knex('sys_user').where({ email: '442079460000@phone.invalid' }).select('id'));
    const both = await s.notify({ to: { userIds: [phoneUser.id, ada.id] }, channels: ['email', 'sms'], title: 'Both', body: 'b' });
    t.same(both.body.results.map((r: { recipient: { value: string }; channel: string; status: string }) => [r.recipient.value, r.channel, r.status]), [
      [phoneUser.id, 'email', 'no_address'],
      [phoneUser.id, 'sms', 'sent'],
      [ada.id, 'email', 'sent'],
      [ada.id, 'sms', 'no_address'],
    ], 'addresses come from the identity');
    t.same(s.sink.mails.map((m) => m.to), [['ada@example.com']], 'no mail to the placeholder address');
  });
}

t.test('the retention contract: 90 days, deleted by created_at (another window: lifecycle.retention_overrides, test/runtime/removedOptions.test.ts)', async (t) => {
  const s = await bootNotify(t, 'sqlite');
  const contracts = s.rt.runtime.kernel.service<RetentionRegister>('retention.register')!.contracts();
  t.same(contracts.filter((c) => c.plugin === 'notifications'), [{
    name: 'notifications.history', object: 'sys_notification', keepDays: 90, action: 'delete', ageField: 'created_at', plugin: 'notifications',
    description: 'In-app notifications, read or not, are deleted once older than the window.',
  }]);
});

t.test('a bad request rejects before anything is written or sent', async (t) => {
  const s = await bootNotify(t, 'sqlite');
  const bad = await s.notify({ to: { userIds: [s.ada.id] }, channels: ['in_app'], title: 'two\r\nBcc: x@example.com', body: 'b' });
  t.equal(bad.status, 400);
  t.match(bad.body.error, { code: 'VALIDATION_ERROR', details: { errors: [{ path: 'title', message: 'must be one line' }] } });
  const many = await s.notify({ to: { emails: Array.from({ length: 101 }, (_, i) => `u${i}@example.com`) }, channels: ['email'], title: 't', body: 'b' });
  t.match(many.body.error, { code: 'VALIDATION_ERROR', details: { errors: [{ path: 'to', message: 'at most 100 recipients' }] } });
  t.same((await s.send('GET', '/api/v1/notifications', s.ada)).body.items, [], 'nothing was written');
  t.equal(s.sink.mails.length, 0, 'nothing was sent');
});
