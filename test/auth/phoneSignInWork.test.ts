/**
 * Phone sign-in does the same password hashing whether or not the number has an account with a
 * password, as email sign-in does, so its time tells nothing. Counted without a clock: the scrypt
 * jobs each request starts (async_hooks sees each as a SCRYPTREQUEST), on SQLite and PostgreSQL.
 */
import { createHook } from 'node:async_hooks';
import t, { type Test } from 'tap';
import type { TestRuntime } from '../harness/startTestRuntime.ts';
import { startSmsSink, type SmsSink } from '../sms/smsSink.ts';
import { eachBackend, type Site } from './authHarness.ts';

process.env.PHONE_WORK_SID = 'AC0123456789abcdef0123456789abcdef';
process.env.PHONE_WORK_TOKEN = 'twilio-auth-token-for-phone-work';

const WITH_PASSWORD = '+4915112340001';
const CODE_ONLY = '+4915112340002';
const UNKNOWN = '+4915112340003';

let scrypts = 0;
createHook({ init(_id, type) { if (type === 'SCRYPTREQUEST') scrypts++; } }).enable();

async function boot(t: Test, site: Site): Promise<{ rt: TestRuntime; sink: SmsSink }> {
  const sink = await startSmsSink();
  t.teardown(() => sink.close());
  const rt = await site.boot({
    auth: { signUp: true, rateLimit: { enabled: false }, phoneNumber: { cooldownSeconds: 0, hourlyCap: 100, perIp: { max: 1000, windowSeconds: 60 } } },
    config: { sms: { provider: 'twilio', from: '+15005550006', twilio: { baseUrl: sink.url, accountSidEnv: 'PHONE_WORK_SID', authTokenEnv: 'PHONE_WORK_TOKEN' } } },
  });
  return { rt, sink };
}

const post = (rt: TestRuntime, path: string, payload: object) => rt.inject({ method: 'POST', url: `/api/v1/auth${path}`, payload });

t.test('phone sign-in hashes once, whether the number has an account or not', async (t) => {
  await eachBackend(t, ['phonework'], async (t, site) => {
    const { rt, sink } = await boot(t, site);
    // An account with a password (verified, then a password set by reset code), and one with a code only.
    for (const phone of [WITH_PASSWORD, CODE_ONLY]) {
      t.equal((await post(rt, '/phone-number/send-otp', { phoneNumber: phone })).statusCode, 200, `code sent to ${phone}`);
      t.equal((await post(rt, '/phone-number/verify', { phoneNumber: phone, code: sink.codeFor(phone)! })).statusCode, 200, `${phone} verified`);
    }
    t.equal((await post(rt, '/phone-number/request-password-reset', { phoneNumber: WITH_PASSWORD })).statusCode, 200, 'reset code sent');
    const reset = await post(rt, '/phone-number/reset-password', { phoneNumber: WITH_PASSWORD, otp: sink.codeFor(WITH_PASSWORD)!, newPassword: 'phone-password-1' });
    t.equal(reset.statusCode, 200, reset.body);

    const attempt = async (phone: string, password: string) => {
      const before = scrypts;
      const res = await post(rt, '/sign-in/phone-number', { phoneNumber: phone, password });
      return { status: res.statusCode, code: res.statusCode === 200 ? null : res.json().error.code, hashed: scrypts - before };
    };
    const right = await attempt(WITH_PASSWORD, 'phone-password-1');
    t.same(right, { status: 200, code: null, hashed: 1 }, 'the right password: one hash (its check)');
    const wrong = await attempt(WITH_PASSWORD, 'not-the-password');
    t.same(wrong, { status: 401, code: 'UNAUTHENTICATED', hashed: 1 }, 'a wrong password: one hash');
    t.same(await attempt(UNKNOWN, 'not-the-password'), wrong, 'a number without an account: the same answer after the same hashing');
    t.same(await attempt(CODE_ONLY, 'not-the-password'), wrong, 'an account without a password: the same too');
  });
});
