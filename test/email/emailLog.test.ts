/** The email log's pure parts: the row kept for a mail (never its body) and who sees its recipients. */
import t from 'tap';
import type { Principal } from '../../capabilities/authSession.ts';
import { seesRecipients } from '../../plugins/activities/activitySources.ts';
import { emailLogRow } from '../../plugins/email/emailLog.ts';

const AT = new Date('2026-03-01T10:00:00.000Z');
const message = {
  to: 'ada@example.com', subject: 'Your claim', text: 'code 123456 BODY', html: '<b>123456</b>',
  attachments: [{ filename: 'a.csv', content: Buffer.from('x,y'), contentType: 'text/csv' }],
  about: { environmentId: 'dev', object: 'claim', recordId: 'r1', sentBy: 'u1' },
};

t.test('the row holds who, what, when and how it went; never the body, html or attachments', async (t) => {
  t.same(emailLogRow(message, { status: 'sent', messageId: '<m1@example.com>' }, AT), {
    object: 'claim', record_id: 'r1', recipients: ['ada@example.com'], subject: 'Your claim', sent_by: 'u1',
    sent_at: '2026-03-01T10:00:00.000Z', status: 'sent', message_id: '<m1@example.com>', error: null,
  });
  const failed = emailLogRow({ ...message, about: { environmentId: 'dev', object: 'claim', recordId: 'r1' } }, { status: 'failed', error: 'SERVICE_UNAVAILABLE' }, AT);
  t.match(failed, { status: 'failed', error: 'SERVICE_UNAVAILABLE', message_id: null, sent_by: null });
  t.notMatch(JSON.stringify(failed), /123456|BODY|a\.csv/, 'nothing of the body');
});

t.test('recipients: admins and the sender; nobody else, the system included', async (t) => {
  const user = (userId: string, isAdmin = false) => ({ kind: 'user', userId, isAdmin }) as unknown as Principal;
  t.equal(seesRecipients(user('admin', true), null), true, 'an admin, for a system mail');
  t.equal(seesRecipients(user('u1'), 'u1'), true, 'the sender');
  t.equal(seesRecipients(user('u2'), 'u1'), false, 'another reader');
  t.equal(seesRecipients(user('u2'), null), false, 'a reader, for a system mail');
  t.equal(seesRecipients(null, null), false, 'no principal');
  t.equal(seesRecipients({ kind: 'system', userId: 'system', isAdmin: true } as unknown as Principal, null), false, 'the system');
});
