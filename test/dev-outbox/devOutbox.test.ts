/** The development outbox: what the log providers did not deliver, kept for admins outside production, never in production. */
import { Writable } from 'node:stream';
import pino from 'pino';
import t, { type Test } from 'tap';
import { outboxOutsideProduction, type OutboxMessage } from '../../capabilities/devOutbox.ts';
import type { SmsSend } from '../../capabilities/smsSend.ts';
import { createDevOutbox } from '../../plugins/dev-outbox/createDevOutbox.ts';
import { startTestRuntime } from '../harness/startTestRuntime.ts';

const ADMIN = { email: 'admin@example.com', password: 'admin-password-1' };

async function boot(t: Test, env: NodeJS.ProcessEnv = {}) {
  const lines: string[] = [];
  const logger = pino({ level: 'info' }, new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } }));
  const rt = await startTestRuntime({ config: { auth: { admin: ADMIN }, plugins: { email: { provider: 'log' }, auth: { baseURL: 'https://app.example.com' } }, sms: { provider: 'log' } }, env, logger });
  t.teardown(() => rt.close());
  const signIn = await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-in', payload: ADMIN });
  t.equal(signIn.statusCode, 200, signIn.body);
  const logged = (msg: string) => lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === msg);
  return { rt, token: signIn.json().token as string, lines, logged };
}

t.test('the outbox keeps the last 200 of each environment, newest first, with their links', async (t) => {
  const outbox = createDevOutbox('default');
  for (let i = 0; i < 205; i++) outbox.keep(undefined, { channel: 'sms', to: '+4915112345678', text: `code ${i}` });
  outbox.keep('other', { channel: 'email', to: 'a@example.com', subject: 'Hi', text: 'Open https://x.example.com/a?b=1. Or http://y.example.com/c' });
  const kept = outbox.list('default');
  t.equal(kept.length, 200);
  t.equal(kept[0]!.text, 'code 204', 'newest first');
  t.equal(kept[199]!.text, 'code 5', 'the oldest five dropped');
  t.same(outbox.list('other').map((m) => [m.channel, m.subject, m.links]), [['email', 'Hi', ['https://x.example.com/a?b=1.', 'http://y.example.com/c']]]);
  t.same(outbox.list('nowhere'), []);
});

t.test('the one production guard: the outbox outside production, none in production', async (t) => {
  const outbox = createDevOutbox('default');
  t.equal(outboxOutsideProduction(false, outbox), outbox, 'outside production: the outbox');
  t.equal(outboxOutsideProduction(true, outbox), undefined, 'in production: none');
  t.equal(outboxOutsideProduction(false, undefined), undefined, 'without the plugin: none');
});

t.test('outside production: admins read every mail and text at GET /dev/outbox, codes and links included', async (t) => {
  const { rt, token, logged } = await boot(t);
  const auth = { authorization: `Bearer ${token}` };
  const sent = await rt.inject({ method: 'POST', url: '/api/v1/email/send', headers: auth, payload: { to: 'ada@example.com', subject: 'Your code', text: 'Your code is 987654' } });
  t.equal(sent.statusCode, 200, sent.body);
  const reset = await rt.inject({ method: 'POST', url: '/api/v1/auth/request-password-reset', payload: { email: ADMIN.email } });
  t.equal(reset.statusCode, 200, reset.body);
  await rt.runtime.kernel.service<SmsSend>('sms.send')!.send({ to: '+4915112345678', body: 'Your sign-in code: 424242' });

  const res = await rt.inject({ method: 'GET', url: '/api/v1/dev/outbox', headers: auth });
  t.equal(res.statusCode, 200, res.body);
  const items = res.json().items as OutboxMessage[];
  t.same(items.map((m) => [m.channel, m.to, m.subject]), [
    ['sms', '+4915112345678', null],
    ['email', ADMIN.email, 'Reset your password'],
    ['email', 'ada@example.com', 'Your code'],
  ], 'newest first');
  t.equal(items[0]!.text, 'Your sign-in code: 424242', 'the code of the text');
  t.equal(items[2]!.text, 'Your code is 987654', 'the code of the mail');
  t.equal(items[1]!.links.length, 1, 'the reset link');
  t.match(items[1]!.links[0], /^https:\/\/app.example.com\/.+reset-password/);
  t.ok(items[1]!.text.includes(items[1]!.links[0]!), 'the link is in the text');

  const mailLine = logged('email not sent (log provider)')[0];
  t.match(mailLine, { to: 'ada@example.com', readAt: 'GET /api/v1/dev/outbox (the console: Outbox)' }, 'the log line says where to look');
  t.match(logged('sms not sent (log provider)')[0], { readAt: 'GET /api/v1/dev/outbox (the console: Outbox)' });

  const created = await rt.inject({ method: 'POST', url: '/api/v1/auth/admin/create-user', headers: auth, payload: { email: 'member@example.com', password: 'member-password-1', mustChangePassword: false } });
  t.equal(created.statusCode, 201, created.body);
  const member = await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-in', payload: { email: 'member@example.com', password: 'member-password-1' } });
  const denied = await rt.inject({ method: 'GET', url: '/api/v1/dev/outbox', headers: { authorization: `Bearer ${member.json().token}` } });
  t.equal(denied.statusCode, 403, 'a member may not read it');
  t.equal(denied.json().error.code, 'PERMISSION_DENIED');
  t.equal((await rt.inject({ method: 'GET', url: '/api/v1/dev/outbox' })).statusCode, 401, 'anonymous: 401');
});

t.test('in production: no route and nothing kept', async (t) => {
  const { rt, token, lines, logged } = await boot(t, { NODE_ENV: 'production' });
  const auth = { authorization: `Bearer ${token}` };
  const sent = await rt.inject({ method: 'POST', url: '/api/v1/email/send', headers: auth, payload: { to: 'ada@example.com', subject: 'Your code', text: 'Your code is 987654' } });
  t.equal(sent.statusCode, 200, sent.body);
  await rt.runtime.kernel.service<SmsSend>('sms.send')!.send({ to: '+4915112345678', body: 'Your sign-in code: 424242' });
  t.same(rt.runtime.kernel.service<{ list(env: string): unknown[] }>('dev.outbox')!.list('default'), [], 'nothing kept');
  const res = await rt.inject({ method: 'GET', url: '/api/v1/dev/outbox', headers: auth });
  t.equal(res.statusCode, 404, 'the route does not exist');
  t.equal(res.json().error.code, 'ROUTE_NOT_FOUND');
  const line = logged('email not sent (log provider)')[0];
  t.match(line, { to: 'ada@example.com' });
  t.equal(line!.readAt, undefined, 'the log line points nowhere');
  t.notMatch(lines.join(''), /987654|424242/, 'no code in any log line');
});
