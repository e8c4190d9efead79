/** checkRequest: the limits and shapes of a send, without a server. */
import t from 'tap';
import { checkRequest, LIMITS } from '../../plugins/notifications/notificationRequest.ts';

const base = { environmentId: 'main', to: { userIds: ['u1'] }, channels: ['in_app'] as const, title: 'Title', body: 'Body' };
const pathsOf = (fn: () => unknown): string[] => {
  try {
    fn();
  } catch (error) {
    return ((error as { details: { errors: Array<{ path: string }> } }).details.errors).map((e) => e.path);
  }
  return [];
};

t.test('a valid request, duplicates removed and emails lower-cased', async (t) => {
  const checked = checkRequest({ ...base, to: { userIds: ['u1', 'u1'], emails: ['A@Example.com', 'a@example.com'], phones: ['+4915112345678'] }, channels: ['in_app', 'email'], link: '/app/x', record: { object: 'account', id: 'a1' } });
  t.same(checked, {
    environmentId: 'main', userIds: ['u1'], emails: ['a@example.com'], phones: ['+4915112345678'], channels: ['in_app', 'email'],
    title: 'Title', body: 'Body', link: '/app/x', record: { object: 'account', id: 'a1' },
  });
  t.equal(checkRequest({ ...base, link: 'https://example.com/a?b=c' }).link, 'https://example.com/a?b=c');
});

t.test('refusals name their path', async (t) => {
  const cases: Array<[string, object, string[]]> = [
    ['no recipient', { to: {} }, ['to']],
    ['too many recipients', { to: { userIds: Array.from({ length: LIMITS.recipients + 1 }, (_, i) => `u${i}`) } }, ['to']],
    ['no channel', { channels: [] }, ['channels']],
    ['a repeated channel', { channels: ['email', 'email'] }, ['channels']],
    ['an unknown channel', { channels: ['pigeon'] }, ['channels.0']],
    ['a two-line title', { title: 'a\nBcc: x@example.com' }, ['title']],
    ['a blank title', { title: '   ' }, ['title']],
    ['a long title', { title: 'x'.repeat(LIMITS.title + 1) }, ['title']],
    ['an empty body', { body: '' }, ['body']],
    ['a long body', { body: 'x'.repeat(LIMITS.body + 1) }, ['body']],
    ['a protocol-relative link', { link: '//evil.example.com/x' }, ['link']],
    ['a javascript: link', { link: 'javascript:alert(1)' }, ['link']],
    ['an http link', { link: 'http://example.com' }, ['link']],
    ['a phone not in E.164', { to: { phones: ['0151 123'] } }, ['to.phones.0']],
    ['two addresses in one', { to: { emails: ['a@example.com, b@example.com'] } }, ['to.emails.0']],
    ['a record with a bad object', { record: { object: 'Bad-Name', id: '1' } }, ['record.object']],
    ['an unknown key', { cc: ['x'] }, ['(root)']],
  ];
  for (const [name, patch, paths] of cases) t.same(pathsOf(() => checkRequest({ ...base, ...patch } as never)), paths, name);
  t.throws(() => checkRequest({ ...base, title: 'a\nb' }), { code: 'VALIDATION_ERROR' });
});
