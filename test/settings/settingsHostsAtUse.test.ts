/**
 * Hosts chosen in settings are checked when the runtime connects, not only when they are written
 * (docs/settings.md, Hosts chosen in settings): settings stored while `privateHosts` was 'allow'
 * (or a name re-pointed after the write) point at the operator's own network; once the runtime
 * runs with 'deny', every connection to them is refused before anything is sent, in each
 * namespace that connects (sms through a name, ai and email through a literal address), and the
 * refusal is logged. The config file's hosts are never checked. The data path is the same on
 * every driver: SQLite alone.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import t from 'tap';
import { startFakeProvider } from '../ai/fakeProvider.ts';
import { bearer, signIn, sqliteSite } from '../auth/authHarness.ts';
import { startSmtpSink } from '../email/smtpSink.ts';
import { startSmsSink } from '../sms/smsSink.ts';

const SID = 'AC0123456789abcdef0123456789abcdef';
/** Sign-in codes by text, without the limits that would slow a test down. */
const AUTH = { signUp: true, rateLimit: { enabled: false }, phoneNumber: { cooldownSeconds: 0, hourlyCap: 100, perIp: { max: 10_000, windowSeconds: 60 } } };

function capturedLogger() {
  let text = '';
  const stream = new Writable({ write(chunk, _enc, done) { text += chunk.toString(); done(); } });
  return { logger: pino({ level: 'trace' }, stream), text: () => text };
}

t.test("settings stored while 'allow' reach the operator's network; under 'deny' every connection to them is refused", async (t) => {
  const sms = await startSmsSink();
  const smtp = await startSmtpSink();
  const ai = await startFakeProvider();
  t.teardown(async () => { await sms.close(); await smtp.close(); await ai.close(); });
  const site = sqliteSite(t, ['at-use']);
  const boot = (privateHosts: 'allow' | 'deny', logger: pino.Logger) => site.boot({
    config: { apps: [], sms: { provider: 'log' }, plugins: { auth: AUTH, email: { provider: 'log' }, ai: { providers: [] }, settings: { privateHosts } } },
    logger,
  });

  let n = 0;
  const use = async (rt: Awaited<ReturnType<typeof boot>>, token: string) => {
    const at = n++;
    const phone = `+49151${String(2_000_000 + at)}`;
    const code = await rt.inject({ method: 'POST', url: '/api/v1/auth/phone-number/send-otp', payload: { phoneNumber: phone } });
    const mail = await rt.inject({ method: 'POST', url: '/api/v1/email/send', headers: bearer(token), payload: { to: `to-${at}@example.com`, subject: 's', text: 't' } });
    const chat = await rt.inject({ method: 'POST', url: '/api/v1/ai/chat', headers: bearer(token), payload: { messages: [{ role: 'user', content: `marker-${at}` }] } });
    return { code, mail, chat, phone, to: `to-${at}@example.com`, marker: `marker-${at}` };
  };
  const smsReached = (phone: string) => sms.requests.some((r) => r.form.To === phone);
  const aiReached = (marker: string) => ai.requests.some((r) => JSON.stringify(r.body ?? '').includes(marker));

  // While 'allow' (the default outside production): the settings point at loopback servers.
  const allowLogs = capturedLogger();
  const open = await boot('allow', allowLogs.logger);
  const token = (await signIn(open)).token;
  const smsPort = new URL(sms.url).port;
  const puts = [
    ['sms', { provider: 'twilio', from: '+15005550006', twilio: { baseUrl: `http://localhost:${smsPort}`, accountSid: SID, authToken: 'tenant-token' } }],
    ['email', { provider: 'smtp', from: 'noreply@tenant.example', smtp: { host: '127.0.0.1', port: smtp.port } }],
    ['ai', { providers: [{ id: 'local', baseURL: ai.baseURL, models: ['m1'] }], defaultModel: 'local/m1' }],
  ] as const;
  for (const [namespace, body] of puts) {
    const res = await open.inject({ method: 'PUT', url: `/api/v1/settings/${namespace}`, headers: bearer(token), payload: body as object });
    t.equal(res.statusCode, 200, `${namespace} stored while 'allow': ${res.body.slice(0, 200)}`);
  }
  const before = await use(open, token);
  t.equal(before.code.statusCode, 200, 'a sign-in code is texted');
  t.ok(smsReached(before.phone), "through the settings' provider at localhost");
  t.equal(before.mail.statusCode, 200, `a mail is sent: ${before.mail.body.slice(0, 200)}`);
  t.same((await smtp.next(before.to)).to, [before.to], "through the settings' SMTP server at 127.0.0.1");
  t.equal(before.chat.statusCode, 200, `a chat is answered: ${before.chat.body.slice(0, 200)}`);
  t.ok(aiReached(before.marker), "by the settings' provider at 127.0.0.1");
  await open.close();

  // The same settings, the runtime now with 'deny': nothing reaches those servers.
  const smsSeen = sms.requests.length;
  const mailsSeen = smtp.mails.length;
  const aiSeen = ai.requests.length;
  const logs = capturedLogger();
  const closed = await boot('deny', logs.logger);
  const token2 = (await signIn(closed)).token;
  const after = await use(closed, token2);
  t.same([after.code.statusCode, after.code.json().error?.code], [502, 'SMS_PROVIDER_ERROR'], `the code is not texted: ${after.code.body.slice(0, 200)}`);
  t.same([after.mail.statusCode, after.mail.json().error?.details?.reason], [503, 'SMTP SETTINGS_HOST_REFUSED'], `the mail is not sent: ${after.mail.body.slice(0, 200)}`);
  t.same([after.chat.statusCode, after.chat.json().error?.code], [502, 'AI_PROVIDER_ERROR'], `the chat is not answered: ${after.chat.body.slice(0, 200)}`);
  t.equal(sms.requests.length, smsSeen, 'no request reached the SMS server (localhost resolves to loopback)');
  t.equal(smtp.mails.length, mailsSeen, 'no mail reached the SMTP server (127.0.0.1)');
  t.equal(ai.requests.length, aiSeen, 'no request reached the AI server (127.0.0.1)');
  const refusals = logs.text().split('\n').filter((line) => line.includes('SETTINGS_HOST_REFUSED'));
  t.ok(refusals.some((line) => line.includes('"host":"localhost"')), 'the refusal of localhost is logged');
  t.ok(refusals.some((line) => line.includes('"host":"127.0.0.1"') && line.includes('a loopback address')), 'the refusal of 127.0.0.1 is logged, with what it is');
  t.notOk(logs.text().includes('tenant-token'), 'the credentials are in no log line');
});

t.test("the config file's hosts are the operator's: never checked, also under 'deny'", async (t) => {
  const sms = await startSmsSink();
  // The sms plugin reads the variables its config names from the process.
  const saved = { OPERATOR_SID: process.env.OPERATOR_SID, OPERATOR_TOKEN: process.env.OPERATOR_TOKEN };
  Object.assign(process.env, { OPERATOR_SID: SID, OPERATOR_TOKEN: 'operator-token' });
  t.teardown(async () => {
    for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k]; else process.env[k] = v;
    await sms.close();
  });
  const site = sqliteSite(t, ['config-hosts']);
  const rt = await site.boot({
    config: { apps: [], sms: { provider: 'twilio', from: '+15005550006', twilio: { baseUrl: sms.url, accountSidEnv: 'OPERATOR_SID', authTokenEnv: 'OPERATOR_TOKEN' } }, plugins: { auth: AUTH, email: { enabled: false }, settings: { privateHosts: 'deny' } } },
  });
  const res = await rt.inject({ method: 'POST', url: '/api/v1/auth/phone-number/send-otp', payload: { phoneNumber: '+491513000000' } });
  t.equal(res.statusCode, 200, res.body.slice(0, 200));
  t.ok(sms.requests.some((r) => r.form.To === '+491513000000'), 'the config file’s provider at 127.0.0.1 is reached');
});
