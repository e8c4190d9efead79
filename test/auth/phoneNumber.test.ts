/** Phone-number sign-in: codes texted through a Twilio-speaking local server, on SQLite and PostgreSQL. */
import { Writable } from 'node:stream';
import pino from 'pino';
import t, { type Test } from 'tap';
import type { TestRuntime } from '../harness/startTestRuntime.ts';
import { startSmsSink, type SmsSink } from '../sms/smsSink.ts';
import { bearer, eachBackend, type Site } from './authHarness.ts';

const SID = 'AC0123456789abcdef0123456789abcdef';
const TOKEN = 'twilio-auth-token-for-phone-tests';
process.env.PHONE_TEST_SID = SID;
process.env.PHONE_TEST_TOKEN = TOKEN;

const PHONE = '+4915112345678';

interface Booted {
  rt: TestRuntime;
  sink: SmsSink;
  lines: string[];
}

async function boot(t: Test, site: Site, phone: Record<string, unknown>, auth: Record<string, unknown> = {}): Promise<Booted> {
  const sink = await startSmsSink();
  t.teardown(() => sink.close());
  const lines: string[] = [];
  const logger = pino({ level: 'debug' }, new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } }));
  const rt = await site.boot({
    auth: { signUp: true, rateLimit: { enabled: false }, phoneNumber: phone, ...auth },
    config: { sms: { provider: 'twilio', from: '+15005550006', twilio: { baseUrl: sink.url, accountSidEnv: 'PHONE_TEST_SID', authTokenEnv: 'PHONE_TEST_TOKEN' } } },
    logger,
  });
  return { rt, sink, lines };
}

const post = (rt: TestRuntime, path: string, payload: object, extra: { headers?: Record<string, string>; remoteAddress?: string } = {}) =>
  rt.inject({ method: 'POST', url: `/api/v1/auth${path}`, payload, ...(extra.headers ? { headers: extra.headers } : {}), ...(extra.remoteAddress ? { remoteAddress: extra.remoteAddress } : {}) });

const OPEN = { cooldownSeconds: 0, hourlyCap: 100, perIp: { max: 1000, windowSeconds: 60 } };

t.test('phone sign-up, verification, password reset by code, sign-in with phone and password', async (t) => {
  await eachBackend(t, ['main'], async (t, site) => {
    const { rt, sink, lines } = await boot(t, site, OPEN);
    const [env] = site.ids as [string];
    const codes: string[] = [];

    // Spaces, dashes and parentheses are removed: the same number however it is typed.
    const sent = await post(rt, '/phone-number/send-otp', { phoneNumber: '+49 (151) 1234-5678' });
    t.equal(sent.statusCode, 200, sent.body);
    t.equal(sink.requests.length, 1, 'one text');
    t.equal(sink.requests[0]!.form.To, PHONE, 'sent to the E.164 form');
    t.equal(sink.requests[0]!.headers.authorization, `Basic ${Buffer.from(`${SID}:${TOKEN}`).toString('base64')}`);
    const code = sink.codeFor(PHONE)!;
    t.match(code, /^\d{6}$/, 'a six-digit code');
    codes.push(code);

    const verified = await post(rt, '/phone-number/verify', { phoneNumber: PHONE, code });
    t.equal(verified.statusCode, 200, verified.body);
    const body = verified.json() as { status: boolean; token: string; user: Record<string, unknown> };
    t.equal(body.status, true);
    t.ok(body.token, 'a session');
    t.match(body.user, { phoneNumber: PHONE, phoneNumberVerified: true, email: '4915112345678@phone.invalid' }, 'a phone-only account with a placeholder email');
    const session = await rt.inject({ url: '/api/v1/auth/get-session', headers: bearer(body.token) });
    t.equal(session.statusCode, 200);
    t.equal(session.json().user.phoneNumber, PHONE, 'the token is a session of the new account');
    const [row] = await site.query(env, 'select email, phone_number, phone_number_verified from sys_user where phone_number = ?', [PHONE]);
    t.match(row, { email: '4915112345678@phone.invalid', phone_number: PHONE }, 'stored in sys_user.phone_number');
    t.ok(row!.phone_number_verified === true || row!.phone_number_verified === 1, 'phone_number_verified is set');

    const again = await post(rt, '/phone-number/verify', { phoneNumber: PHONE, code });
    t.equal(again.statusCode, 400, 'a code works once');

    const asked = await post(rt, '/phone-number/request-password-reset', { phoneNumber: PHONE });
    t.equal(asked.statusCode, 200, asked.body);
    const resetCode = sink.codeFor(PHONE)!;
    t.not(resetCode, null);
    t.match(sink.requests.at(-1)!.form.Body, /is your password reset code/);
    codes.push(resetCode);
    const wrongReset = await post(rt, '/phone-number/reset-password', { phoneNumber: PHONE, otp: resetCode === '000000' ? '111111' : '000000', newPassword: 'phone-password-1' });
    t.equal(wrongReset.statusCode, 400, 'a wrong reset code is refused');
    const reset = await post(rt, '/phone-number/reset-password', { phoneNumber: PHONE, otp: resetCode, newPassword: 'phone-password-1' });
    t.equal(reset.statusCode, 200, reset.body);
    t.equal((await rt.inject({ url: '/api/v1/auth/get-session', headers: bearer(body.token) })).json(), null, 'the reset revoked the earlier session');

    const signedIn = await post(rt, '/sign-in/phone-number', { phoneNumber: '+49 151 12345678', password: 'phone-password-1' });
    t.equal(signedIn.statusCode, 200, signedIn.body);
    t.ok(signedIn.json().token, 'sign-in with phone and password gives a token');
    t.equal(signedIn.json().user.phoneNumber, PHONE);
    const wrong = await post(rt, '/sign-in/phone-number', { phoneNumber: PHONE, password: 'not-the-password' });
    t.equal(wrong.statusCode, 401);
    t.equal(wrong.json().error.code, 'UNAUTHENTICATED');

    for (const bad of ['12345', '+0123456789', 'call me', '+49 151 1234567890123']) {
      const res = await post(rt, '/phone-number/send-otp', { phoneNumber: bad });
      t.equal(res.statusCode, 400, `'${bad}' is refused`);
      t.equal(res.json().error.code, 'PHONE_NUMBER_INVALID');
      t.match(res.json().error.message, /E\.164 form, such as \+4915112345678/);
    }
    t.equal((await post(rt, '/phone-number/send-otp', { phoneNumber: 4915112345678 })).json().error.code, 'PHONE_NUMBER_INVALID');
    const textsBefore = sink.requests.length;
    const plain = await rt.inject({ method: 'POST', url: '/api/v1/auth/phone-number/send-otp', headers: { 'content-type': 'text/plain' }, payload: JSON.stringify({ phoneNumber: PHONE }) });
    t.equal(plain.statusCode, 415, 'only JSON bodies: another type would pass by the limits');
    t.equal(plain.json().error.code, 'UNSUPPORTED_MEDIA_TYPE');
    t.equal(sink.requests.length, textsBefore, 'nothing texted');

    await t.test('the placeholder domain cannot be taken by email', async (t) => {
      const squat = await post(rt, '/sign-up/email', { email: '4915100000001@Phone.invalid', password: 'squatter-password-1', name: 'x' });
      t.equal(squat.statusCode, 400);
      t.match(squat.json().error.message, /@phone\.invalid are reserved for phone-only accounts/);
      const admin = await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-in', payload: { email: 'admin@example.com', password: 'admin-password-1' } });
      const created = await rt.inject({ method: 'POST', url: '/api/v1/auth/admin/create-user', headers: bearer(admin.json().token), payload: { email: '4915100000001@phone.invalid' } });
      t.equal(created.statusCode, 400);
      t.match(created.json().error.message, /reserved for phone-only accounts/);
      const [n] = await site.query(env, 'select count(*) as n from sys_user where email = ?', ['4915100000001@phone.invalid']);
      t.equal(Number(n!.n), 0, 'no account took it');
    });

    await t.test('a wrong code too many times voids it', async (t) => {
      await post(rt, '/phone-number/send-otp', { phoneNumber: PHONE });
      const fresh = sink.codeFor(PHONE)!;
      codes.push(fresh);
      const wrongCode = fresh === '000000' ? '111111' : '000000';
      for (let i = 1; i <= 3; i++) {
        const res = await post(rt, '/phone-number/verify', { phoneNumber: PHONE, code: wrongCode });
        t.equal(res.statusCode, 400, `wrong guess ${i}`);
        t.equal(res.json().error.details.reason, 'INVALID_OTP');
      }
      const late = await post(rt, '/phone-number/verify', { phoneNumber: PHONE, code: fresh });
      t.equal(late.statusCode, 403, 'the right code after three wrong guesses is refused');
      t.equal(late.json().error.details.reason, 'TOO_MANY_ATTEMPTS');
      const gone = await post(rt, '/phone-number/verify', { phoneNumber: PHONE, code: fresh });
      t.equal(gone.statusCode, 400, 'and the code is void');
      t.equal(gone.json().error.details.reason, 'OTP_NOT_FOUND');
    });

    await t.test('codes expire', async (t) => {
      await post(rt, '/phone-number/send-otp', { phoneNumber: PHONE });
      const fresh = sink.codeFor(PHONE)!;
      codes.push(fresh);
      const [row] = await site.query(env, 'select "expiresAt" as e from sys_verification where identifier = ?', [`phone-number-otp-${PHONE}`]);
      t.ok(row, 'the code is stored under the number');
      const past = typeof row!.e === 'number' ? Date.now() - 1000 : new Date(Date.now() - 1000).toISOString();
      await site.query(env, 'update sys_verification set "expiresAt" = ? where identifier = ?', [past, `phone-number-otp-${PHONE}`]);
      const res = await post(rt, '/phone-number/verify', { phoneNumber: PHONE, code: fresh });
      t.equal(res.statusCode, 400);
      t.equal(res.json().error.details.reason, 'OTP_EXPIRED');
    });

    await t.test('codes and message bodies are never logged nor stored', async (t) => {
      const log = lines.join('');
      t.ok(log.length > 0, 'something was logged');
      const stored = await site.dump(env);
      for (const c of codes) {
        t.notOk(log.includes(c), `code ${c} is not in the log`);
        t.notOk(stored.includes(`${c} is your`), 'no message body in the database');
        t.notOk(stored.includes(c), `nor code ${c} itself (stored as a keyed hash)`);
      }
      t.notOk(log.includes(TOKEN), 'nor the provider token');
    });
  });
});

t.test('code limits: per-number cooldown, rolling-hour cap, per-IP limit, each a 429 with retryAfter', async (t) => {
  await eachBackend(t, ['main'], async (t, site) => {
    const { rt, sink } = await boot(t, site, { cooldownSeconds: 2, hourlyCap: 2, perIp: { max: 5, windowSeconds: 600 } });
    const limited = (res: { statusCode: number; json(): { error: { code: string; details: { retryAfter: number; limit: string } } } }, limit: string, max: number, min = 1) => {
      t.equal(res.statusCode, 429);
      t.equal(res.json().error.code, 'RATE_LIMITED');
      t.equal(res.json().error.details.limit, limit);
      const wait = res.json().error.details.retryAfter;
      t.ok(Number.isInteger(wait) && wait >= min && wait <= max, `retryAfter ${wait} is within ${min}..${max}`);
    };
    const first = await post(rt, '/phone-number/send-otp', { phoneNumber: PHONE });
    t.equal(first.statusCode, 200);
    limited(await post(rt, '/phone-number/send-otp', { phoneNumber: '+49 151 12345678' }), 'phoneCode.cooldown', 2);
    limited(await post(rt, '/phone-number/request-password-reset', { phoneNumber: PHONE }), 'phoneCode.cooldown', 2);
    t.equal(sink.requests.length, 1, 'refused requests text nothing');
    await new Promise((r) => setTimeout(r, 2100));
    t.equal((await post(rt, '/phone-number/send-otp', { phoneNumber: PHONE })).statusCode, 200, 'after the cooldown');
    await new Promise((r) => setTimeout(r, 2100));
    // The cap lasts until the first code leaves the rolling hour.
    limited(await post(rt, '/phone-number/send-otp', { phoneNumber: PHONE }), 'phoneCode.hourlyCap', 3600, 3590);
    t.equal(sink.requests.length, 2);

    const from = { remoteAddress: '203.0.113.7' };
    for (let i = 0; i < 5; i++) {
      const res = await post(rt, '/phone-number/send-otp', { phoneNumber: `+4917000000${i}0` }, from);
      t.equal(res.statusCode, 200, `number ${i} from one address`);
    }
    limited(await post(rt, '/phone-number/send-otp', { phoneNumber: '+491700000099' }, from), 'phoneCode.perIp', 600);
    t.equal((await post(rt, '/phone-number/send-otp', { phoneNumber: '+491700000099' }, { remoteAddress: '203.0.113.8' })).statusCode, 200, 'another address is not limited');
  });
});

t.test('without sign-up a code is texted only to known numbers; a provider refusal is SMS_PROVIDER_ERROR', async (t) => {
  await eachBackend(t, ['main'], async (t, site) => {
    const { rt, sink, lines } = await boot(t, site, OPEN, { signUp: false });
    const res = await post(rt, '/phone-number/send-otp', { phoneNumber: PHONE });
    t.equal(res.statusCode, 200, 'the same answer for an unknown number');
    t.equal(sink.requests.length, 0, 'but nothing is texted');
    t.equal((await post(rt, '/phone-number/verify', { phoneNumber: PHONE, code: '000000' })).statusCode, 400, 'and no account appears');

    const admin = await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-in', payload: { email: 'admin@example.com', password: 'admin-password-1' } });
    const imported = await rt.inject({
      method: 'POST', url: '/api/v1/auth/admin/import-users', headers: bearer(admin.json().token),
      payload: { rows: [{ phone: '+49 151 1234 5678', name: 'Grace' }, { email: 'lin@example.com', phone: '+4915199999999' }, { email: 'noel@example.com' }] },
    });
    t.equal(imported.statusCode, 200, imported.body);
    t.same(imported.json().rows.map((r: { delivery: string }) => r.delivery), ['invite_sms', 'invite_sms', 'temporary_password'], 'phone rows are invited by SMS (no email service here)');
    t.same(imported.json().summary.delivery, { invite_email: 0, invite_sms: 2, temporary_password: 1, none: 0 });
    t.same(sink.requests.map((r) => r.form.To).sort(), [PHONE, '+4915199999999'].sort(), 'one invitation per phone row (sent side by side, in any order)');
    t.match(sink.requests[0]!.form.Body, /An account was created for this number/);
    const [env] = site.ids as [string];
    const [row] = await site.query(env, 'select phone_number, email from sys_user where phone_number = ?', [PHONE]);
    t.match(row, { phone_number: PHONE, email: '4915112345678@phone.invalid' }, 'the imported number is stored');

    t.equal((await post(rt, '/phone-number/send-otp', { phoneNumber: PHONE })).statusCode, 200);
    const code = sink.codeFor(PHONE)!;
    t.ok(code, 'a known number gets its code');
    const verified = await post(rt, '/phone-number/verify', { phoneNumber: PHONE, code });
    t.equal(verified.statusCode, 200, verified.body);
    t.match(verified.json().user, { name: 'Grace', phoneNumberVerified: true }, 'the invited user signs in by code');

    sink.answer = { status: 400, json: { code: 21408, message: 'Permission to send an SMS has not been enabled', status: 400 } };
    const refused = await post(rt, '/phone-number/send-otp', { phoneNumber: '+4915199999999' });
    t.equal(refused.statusCode, 502);
    t.equal(refused.json().error.code, 'SMS_PROVIDER_ERROR');
    t.match(refused.json().error.message, /Twilio answered HTTP 400, error 21408/);
    t.notOk(refused.body.includes(TOKEN), 'no credential in the answer');
    const failedCode = /(\d{6}) is your/.exec(sink.requests.at(-1)!.form.Body ?? '')?.[1];
    t.ok(failedCode && !lines.join('').includes(failedCode), 'the refused code is not logged either');
  });
});
