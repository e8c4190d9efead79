/** The sms plugin: settings, Twilio and Vonage against a local HTTP server speaking their formats, the log provider, boot checks. */
import { Writable } from 'node:stream';
import pino from 'pino';
import type { SmsSend } from '../../capabilities/smsSend.ts';
import t from 'tap';
import { logProvider } from '../../plugins/sms/logProvider.ts';
import { resolveSmsSettings } from '../../plugins/sms/resolveSmsSettings.ts';
import { smsOptionsSchema } from '../../plugins/sms/smsOptions.ts';
import { twilioProvider } from '../../plugins/sms/twilioProvider.ts';
import { vonageProvider } from '../../plugins/sms/vonageProvider.ts';
import { freePort } from '../harness/freePort.ts';
import { startTestRuntime } from '../harness/startTestRuntime.ts';
import { startSmsSink } from './smsSink.ts';

const SID = 'AC0123456789abcdef0123456789abcdef';
const TOKEN = 'twilio-auth-token-secret-value';
const KEY = 'vonage-key-1';
const API_SECRET = 'vonage-api-secret-value';
const CODE = '482913';
const options = (input: Record<string, unknown>) => smsOptionsSchema.parse(input);

function capture() {
  const lines: string[] = [];
  const log = pino({ level: 'debug' }, new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } }));
  return { lines, log };
}

t.test('resolveSmsSettings', async (t) => {
  t.same(resolveSmsSettings(options({}), {}, false), { provider: 'log' }, 'development default: log');
  t.throws(() => resolveSmsSettings(options({}), {}, true), { code: 'SMS_NOT_CONFIGURED', message: /Fix: set sms\.provider to 'twilio' or 'vonage'/ }, 'production without a provider is a boot error naming the fix');
  t.same(resolveSmsSettings(options({ provider: 'log' }), {}, true), { provider: 'log' }, 'unless log is chosen explicitly');
  const twilio = resolveSmsSettings(options({ provider: 'twilio', from: '+15005550006', twilio: { baseUrl: 'https://edge.example.com/' } }), { TWILIO_ACCOUNT_SID: SID, TWILIO_AUTH_TOKEN: TOKEN }, true);
  t.same(twilio, { provider: 'twilio', twilio: { accountSid: SID, authToken: TOKEN, from: '+15005550006', messagingServiceSid: null, baseUrl: 'https://edge.example.com', timeoutMs: 10_000 } });
  t.throws(() => resolveSmsSettings(options({ provider: 'twilio', from: '+15005550006' }), { TWILIO_ACCOUNT_SID: SID }, false), { code: 'SMS_NOT_CONFIGURED', details: { reason: 'the Twilio Auth Token (TWILIO_AUTH_TOKEN) is not set', fix: 'set TWILIO_AUTH_TOKEN' } });
  t.throws(() => resolveSmsSettings(options({ provider: 'twilio', from: '+15005550006' }), { TWILIO_ACCOUNT_SID: 'AC1', TWILIO_AUTH_TOKEN: TOKEN }, false), { code: 'SMS_NOT_CONFIGURED', details: { reason: /not an Account SID/ } });
  t.throws(() => resolveSmsSettings(options({ provider: 'twilio' }), { TWILIO_ACCOUNT_SID: SID, TWILIO_AUTH_TOKEN: TOKEN }, false), { code: 'SMS_NOT_CONFIGURED', details: { reason: 'the sender is not set' } });
  const service = resolveSmsSettings(options({ provider: 'twilio', twilio: { messagingServiceSid: `MG${'0'.repeat(32)}`, accountSidEnv: 'MY_SID', authTokenEnv: 'MY_TOKEN' } }), { MY_SID: SID, MY_TOKEN: TOKEN }, false);
  t.match(service, { twilio: { from: null, messagingServiceSid: `MG${'0'.repeat(32)}` } }, 'a Messaging Service replaces from; credentials from the named variables');
  t.match(resolveSmsSettings(options({ provider: 'vonage' }), { VONAGE_API_KEY: KEY, VONAGE_API_SECRET: API_SECRET, SMS_FROM: 'Acme' }, true), { provider: 'vonage', vonage: { apiKey: KEY, apiSecret: API_SECRET, from: 'Acme', baseUrl: 'https://rest.nexmo.com' } });
  t.throws(() => resolveSmsSettings(options({ provider: 'vonage', from: 'Acme' }), { VONAGE_API_KEY: KEY }, false), { code: 'SMS_NOT_CONFIGURED', details: { reason: 'the Vonage API secret (VONAGE_API_SECRET) is not set' } });
  t.throws(() => smsOptionsSchema.parse({ twilio: { baseUrl: 'http://api.example.com' } }), /must be https/, 'credentials never go over plain http to another host');
  t.throws(() => smsOptionsSchema.parse({ from: 'not a sender id!' }), /E\.164 number or an alphanumeric sender id/);
  t.throws(() => smsOptionsSchema.parse({ provider: 'twilio', apiKey: 'x' }), /Unrecognized key/, 'unknown keys are refused');
});

t.test('twilio: the Messages API request, and its error answers mapped to SMS_PROVIDER_ERROR', async (t) => {
  const sink = await startSmsSink();
  t.teardown(() => sink.close());
  const { lines, log } = capture();
  const send = twilioProvider({ accountSid: SID, authToken: TOKEN, from: '+15005550006', messagingServiceSid: null, baseUrl: sink.url, timeoutMs: 2000 }, log);
  await send.send({ to: '+4915112345678', body: `${CODE} is your sign-in code.` });
  const req = sink.requests[0]!;
  t.equal(req.method, 'POST');
  t.equal(req.path, `/2010-04-01/Accounts/${SID}/Messages.json`);
  t.equal(req.headers.authorization, `Basic ${Buffer.from(`${SID}:${TOKEN}`).toString('base64')}`, 'HTTP Basic with Account SID and Auth Token');
  t.equal(req.headers['content-type'], 'application/x-www-form-urlencoded');
  t.same(req.form, { To: '+4915112345678', Body: `${CODE} is your sign-in code.`, From: '+15005550006' });

  const viaService = twilioProvider({ accountSid: SID, authToken: TOKEN, from: null, messagingServiceSid: `MG${'a'.repeat(32)}`, baseUrl: sink.url, timeoutMs: 2000 }, log);
  await viaService.send({ to: '+4915112345678', body: 'hello' });
  t.same(sink.requests[1]!.form, { To: '+4915112345678', Body: 'hello', MessagingServiceSid: `MG${'a'.repeat(32)}` });

  sink.answer = { status: 400, json: { code: 21211, message: `The 'To' number +4915112345678 is not valid. Body: ${CODE}`, more_info: 'https://www.twilio.com/docs/errors/21211', status: 400 } };
  const refused = await send.send({ to: '+4915112345678', body: `${CODE} is your sign-in code.` }).catch((e: unknown) => e as { code: string; status: number; message: string; details: Record<string, unknown> });
  t.match(refused, { code: 'SMS_PROVIDER_ERROR', status: 502, details: { provider: 'twilio', providerCode: 21211, status: 400 } });
  t.equal((refused as { message: string }).message, 'The SMS provider twilio did not accept the message: Twilio answered HTTP 400, error 21211.');
  sink.answer = { status: 401, json: { code: 20003, message: 'Authenticate', status: 401 } };
  const denied = await send.send({ to: '+4915112345678', body: 'x' }).catch((e: unknown) => e as Error & { details: Record<string, unknown> });
  t.match(denied, { code: 'SMS_PROVIDER_ERROR', details: { providerCode: 20003, status: 401 } }, 'bad credentials');
  const all = JSON.stringify([refused, denied, (denied as { details: unknown }).details]) + lines.join('');
  for (const secret of [TOKEN, CODE]) t.notOk(all.includes(secret), `neither the error nor the log holds ${secret === CODE ? 'the code' : 'the token'}`);
  t.ok(lines.some((l) => l.includes('sms delivery failed (twilio)')), 'the failure is logged');
});

t.test('vonage: the SMS API request, and its status answers mapped to SMS_PROVIDER_ERROR', async (t) => {
  const sink = await startSmsSink();
  t.teardown(() => sink.close());
  const { lines, log } = capture();
  const send = vonageProvider({ apiKey: KEY, apiSecret: API_SECRET, from: 'Acme', baseUrl: sink.url, timeoutMs: 2000 }, log);
  sink.answer = { status: 200, json: { 'message-count': '1', messages: [{ to: '4915112345678', 'message-id': 'x', status: '0' }] } };
  await send.send({ to: '+4915112345678', body: `${CODE} is your sign-in code.` });
  const req = sink.requests[0]!;
  t.equal(req.method, 'POST');
  t.equal(req.path, '/sms/json');
  t.equal(req.headers['content-type'], 'application/x-www-form-urlencoded');
  t.same(req.form, { api_key: KEY, api_secret: API_SECRET, from: 'Acme', to: '4915112345678', text: `${CODE} is your sign-in code.` }, 'credentials and message as form fields; the number without +');

  sink.answer = { status: 200, json: { 'message-count': '1', messages: [{ status: '4', 'error-text': `Bad Credentials ${API_SECRET}` }] } };
  const refused = (await send.send({ to: "+4915112345678", body: `${CODE} is your sign-in code.` }).catch((e: unknown) => e)) as Error & { details: Record<string, unknown> };
  t.match(refused, { code: 'SMS_PROVIDER_ERROR', status: 502, details: { provider: 'vonage', providerCode: '4' } });
  t.equal(refused.message, 'The SMS provider vonage did not accept the message: Vonage refused the message (status 4).');
  sink.answer = { status: 500, json: {} };
  t.match(await send.send({ to: '+4915112345678', body: 'x' }).catch((e: unknown) => e), { code: 'SMS_PROVIDER_ERROR', details: { reason: 'Vonage answered HTTP 500' } });
  const all = JSON.stringify(refused) + refused.message + lines.join('');
  for (const secret of [API_SECRET, CODE]) t.notOk(all.includes(secret), 'neither the error nor the log holds a secret or the code');
});

t.test('unreachable and slow providers are SMS_PROVIDER_ERROR', async (t) => {
  const port = await freePort();
  const { log } = capture();
  const down = twilioProvider({ accountSid: SID, authToken: TOKEN, from: '+15005550006', messagingServiceSid: null, baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 2000 }, log);
  t.match(await down.send({ to: '+4915112345678', body: 'x' }).catch((e: unknown) => e), { code: 'SMS_PROVIDER_ERROR', details: { reason: 'unreachable (ECONNREFUSED)' } });
  const sink = await startSmsSink();
  t.teardown(() => sink.close());
  sink.answer = { status: 201, json: {}, delayMs: 1000 };
  const slow = twilioProvider({ accountSid: SID, authToken: TOKEN, from: '+15005550006', messagingServiceSid: null, baseUrl: sink.url, timeoutMs: 200 }, log);
  t.match(await slow.send({ to: '+4915112345678', body: 'x' }).catch((e: unknown) => e), { code: 'SMS_PROVIDER_ERROR', details: { reason: 'no answer within 200 ms' } });
});

t.test('the log provider logs the recipient, never the body', async (t) => {
  const { lines, log } = capture();
  await logProvider(log).send({ to: '+4915112345678', body: `${CODE} is your sign-in code.` });
  t.equal(lines.length, 1);
  t.match(JSON.parse(lines[0]!), { msg: 'sms not sent (log provider)', to: '+4915112345678' });
  t.notOk(lines.join('').includes(CODE), 'the code never appears in the log');
});

t.test('boot: the plugin runs with an sms section or phone sign-in, and production needs a provider', async (t) => {
  const service = (rt: { runtime: { kernel: { service<T>(token: string): T | undefined } } }) => rt.runtime.kernel.service<SmsSend>('sms.send');
  const off = await startTestRuntime({});
  t.teardown(() => off.close());
  t.equal(service(off), undefined, 'no sms section and no phone sign-in: no sms.send');

  const sink = await startSmsSink();
  t.teardown(() => sink.close());
  process.env.TEST_SMS_SID = SID;
  process.env.TEST_SMS_TOKEN = TOKEN;
  const on = await startTestRuntime({ config: { sms: { provider: 'twilio', from: '+15005550006', twilio: { baseUrl: sink.url, accountSidEnv: 'TEST_SMS_SID', authTokenEnv: 'TEST_SMS_TOKEN' } } } });
  t.teardown(() => on.close());
  await service(on)!.send({ to: '+4915112345678', body: 'hello' });
  t.same(sink.requests.at(-1)!.form, { To: '+4915112345678', Body: 'hello', From: '+15005550006' }, 'the sms section configures the plugin');

  const phoneDev = await startTestRuntime({ config: { auth: { plugins: { phoneNumber: true } } } });
  t.teardown(() => phoneDev.close());
  t.type(service(phoneDev)?.send, 'function', 'phone sign-in turns the plugin on (log provider outside production)');
  const phoneOption = await startTestRuntime({ config: { plugins: { auth: { phoneNumber: { hourlyCap: 3 } } } } });
  t.teardown(() => phoneOption.close());
  t.type(service(phoneOption)?.send, 'function', 'so does the plugin option plugins.auth.phoneNumber');

  const production = { NODE_ENV: 'production' };
  await t.rejects(startTestRuntime({ config: { sms: {} }, env: production }), { code: 'KERNEL_BOOT_FAILED', message: /SMS_NOT_CONFIGURED.*Fix: set sms\.provider/s }, 'production without a provider');
  await t.rejects(startTestRuntime({ config: { auth: { plugins: { phoneNumber: true } } }, env: production }), { message: /SMS_NOT_CONFIGURED/ }, 'phone sign-in in production without a provider');
  await t.rejects(startTestRuntime({ config: { auth: { plugins: { phoneNumber: true } }, plugins: { sms: { enabled: false } } } }), { message: /SMS_NOT_CONFIGURED.*auth\.plugins\.phoneNumber is on, but no plugin provides sms\.send/s }, 'phone sign-in without sms.send');
  await t.rejects(startTestRuntime({ config: { auth: { plugins: { phoneNumber: { codeLength: 4 } } } } }), { message: /CONFIG_INVALID.*auth\.plugins\.phoneNumber\.codeLength/s }, 'options are validated');
});
