/** The email plugin: settings, the SMTP provider against a real SMTP server, the log provider, the route. */
import { Writable } from 'node:stream';
import pino from 'pino';
import t, { type Test } from 'tap';
import { resolveEmailSettings } from '../../plugins/email/resolveEmailSettings.ts';
import { startTestRuntime } from '../harness/startTestRuntime.ts';
import { startSmtpSink } from './smtpSink.ts';

const ADMIN = { email: 'admin@example.com', password: 'admin-password-1' };
const FROM = 'OSR <no-reply@example.com>';

t.test('resolveEmailSettings', async (t) => {
  t.same(resolveEmailSettings({}, {}, false), { provider: 'log' }, 'development default: log');
  t.throws(() => resolveEmailSettings({}, {}, true), { code: 'EMAIL_NOT_CONFIGURED' }, 'production without SMTP is a boot error');
  t.same(resolveEmailSettings({ provider: 'log' }, {}, true), { provider: 'log' }, 'unless log is chosen explicitly');
  const fromEnv = resolveEmailSettings({}, { SMTP_HOST: 'mail.example.com', SMTP_PORT: '2525', SMTP_USER: 'u', SMTP_PASSWORD: 'p', EMAIL_FROM: FROM }, false);
  t.same(fromEnv, { provider: 'smtp', smtp: { host: 'mail.example.com', port: 2525, secure: false, requireTLS: false, from: FROM, auth: { user: 'u', pass: 'p' }, timeoutMs: 20_000 } }, 'SMTP_HOST alone selects smtp');
  const options = resolveEmailSettings({ from: FROM, smtp: { host: 'h', secure: true, requireTLS: false, user: 'me', passwordEnv: 'MY_PASS', timeoutMs: 1000 } }, { MY_PASS: 'secret', SMTP_HOST: 'ignored' }, true);
  t.match(options, { provider: 'smtp', smtp: { host: 'h', port: 465, secure: true, auth: { user: 'me', pass: 'secret' } } }, 'options win; the password from the named variable; 465 when secure');
  t.throws(() => resolveEmailSettings({ provider: 'smtp', from: FROM }, {}, false), { code: 'EMAIL_NOT_CONFIGURED', details: { reason: 'the SMTP host is not set' } });
  t.throws(() => resolveEmailSettings({ smtp: { host: 'h', requireTLS: false, passwordEnv: 'SMTP_PASSWORD', timeoutMs: 1 } }, {}, false), { code: 'EMAIL_NOT_CONFIGURED', details: { reason: 'the sender address is not set' } }, 'a sender is required');
  t.throws(() => resolveEmailSettings({ from: FROM }, { SMTP_HOST: 'h', SMTP_USER: 'u' }, false), { code: 'EMAIL_NOT_CONFIGURED', details: { reason: "the password of SMTP user 'u' is not set" } }, 'a user needs a password');
  t.throws(() => resolveEmailSettings({ from: FROM }, { SMTP_HOST: 'h', SMTP_PORT: 'abc' }, false), { code: 'EMAIL_NOT_CONFIGURED' });
});

async function boot(t: Test, email: Record<string, unknown>, extra: { env?: NodeJS.ProcessEnv; lines?: string[] } = {}) {
  const logger = extra.lines
    ? pino({ level: 'info' }, new Writable({ write(chunk, _enc, done) { extra.lines!.push(String(chunk)); done(); } }))
    : undefined;
  const rt = await startTestRuntime({
    config: { auth: { admin: ADMIN }, plugins: { email } },
    ...(extra.env ? { env: extra.env } : {}),
    ...(logger ? { logger } : {}),
  });
  t.teardown(() => rt.close());
  const signIn = await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-in', payload: ADMIN });
  return { rt, token: signIn.json().token as string };
}

t.test('smtp provider: POST /email/send reaches a real SMTP server', async (t) => {
  const sink = await startSmtpSink({ user: 'mailer', password: 'mail-pass' });
  t.teardown(() => sink.close());
  const { rt, token } = await boot(t, { provider: 'smtp', from: FROM, smtp: { host: '127.0.0.1', port: sink.port, user: 'mailer', password: 'mail-pass' } });
  const send = (payload: object, headers: Record<string, string> = { authorization: `Bearer ${token}` }) =>
    rt.inject({ method: 'POST', url: '/api/v1/email/send', headers, payload });

  const res = await send({ to: 'ada@example.com', subject: 'Hello Ada', text: 'Plain body é\nhttps://example.com/a/very/long/link?with=query&and=more-characters-than-one-line-holds-0123456789', html: '<p>Hi</p>' });
  t.equal(res.statusCode, 200, res.body);
  t.same(res.json(), { sent: true });
  const mail = await sink.next('ada@example.com');
  t.same(mail.to, ['ada@example.com']);
  t.equal(mail.from, 'no-reply@example.com');
  t.equal(mail.subject, 'Hello Ada');
  t.equal(mail.text, 'Plain body é\nhttps://example.com/a/very/long/link?with=query&and=more-characters-than-one-line-holds-0123456789'.replace(/\n/g, '\r\n'));
  t.equal(mail.html, '<p>Hi</p>');
  t.same(sink.logins, ['mailer'], 'logged in with the configured user');

  t.equal((await send({ to: 'ada@example.com', subject: 's', text: 't' }, {})).statusCode, 401, 'anonymous: 401');
  const bad = await send({ to: 'not-an-address', subject: 's', text: 't' });
  t.equal(bad.statusCode, 400);
  t.equal(bad.json().error.code, 'VALIDATION_ERROR');
  t.equal((await send({ to: 'a@example.com', subject: 'two\r\nBcc: x@example.com', text: 't' })).statusCode, 400, 'a subject is one line');
  t.equal((await send({ to: 'a@example.com', subject: 's', text: 't', cc: 'x@example.com' })).statusCode, 400, 'unknown fields are refused');

  const user = await rt.inject({ method: 'POST', url: '/api/v1/auth/admin/create-user', headers: { authorization: `Bearer ${token}` }, payload: { email: 'plain@example.com', password: 'plain-password-1' } });
  t.equal(user.statusCode, 201);
  const plain = await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-in', payload: { email: 'plain@example.com', password: 'plain-password-1' } });
  const denied = await send({ to: 'a@example.com', subject: 's', text: 't' }, { authorization: `Bearer ${plain.json().token}` });
  t.equal(denied.statusCode, 403, 'needs email:send');
  t.match(denied.json(), { error: { code: 'PERMISSION_DENIED', details: { permission: 'email:send' } } });
  t.equal(sink.mails.length, 1, 'nothing else was sent');

  await sink.close();
  const down = await send({ to: 'ada@example.com', subject: 'Hello', text: 'again' });
  t.equal(down.statusCode, 503, 'an unreachable SMTP server is 503');
  t.match(down.json(), { error: { code: 'SERVICE_UNAVAILABLE', details: { service: 'Email delivery' } } });
});

t.test('a wrong SMTP password is refused by the server: 503, and the body is not logged', async (t) => {
  const sink = await startSmtpSink({ user: 'mailer', password: 'mail-pass' });
  t.teardown(() => sink.close());
  const lines: string[] = [];
  const { rt, token } = await boot(t, { from: FROM, smtp: { host: '127.0.0.1', port: sink.port, user: 'mailer', password: 'wrong' } }, { lines });
  const res = await rt.inject({ method: 'POST', url: '/api/v1/email/send', headers: { authorization: `Bearer ${token}` }, payload: { to: 'ada@example.com', subject: 'S', text: 'secret-code-123456' } });
  t.equal(res.statusCode, 503);
  t.equal(sink.mails.length, 0);
  t.notMatch(lines.join(''), /secret-code-123456/, 'the body is in no log line');
});

t.test('log provider: recipient and subject only, never the body', async (t) => {
  const lines: string[] = [];
  const { rt, token } = await boot(t, {}, { lines });
  const res = await rt.inject({ method: 'POST', url: '/api/v1/email/send', headers: { authorization: `Bearer ${token}` }, payload: { to: 'ada@example.com', subject: 'Your code', text: 'code 987654', html: '<b>987654</b>' } });
  t.equal(res.statusCode, 200);
  const line = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'email not sent (log provider)');
  t.match(line, { to: 'ada@example.com', subject: 'Your code' });
  t.notMatch(lines.join(''), /987654/, 'the body is in no log line');
});

t.test('production without SMTP: a boot error that says how to fix it', async (t) => {
  await t.rejects(startTestRuntime({ config: { plugins: { email: {} } }, env: { NODE_ENV: 'production' } }), /EMAIL_NOT_CONFIGURED|Email delivery is not configured/);
  const off = await startTestRuntime({ config: { plugins: { email: { enabled: false } } }, env: { NODE_ENV: 'production' } });
  t.teardown(() => off.close());
  const res = await off.inject({ method: 'POST', url: '/api/v1/email/send', payload: {} });
  t.equal(res.statusCode, 404, 'disabled: no email route');
});

t.test('unknown options fail the boot', async (t) => {
  await t.rejects(startTestRuntime({ config: { plugins: { email: { provider: 'carrier-pigeon' } } } }), /plugins?\.?email|email/);
});
