/** Password reset and email verification, with mail delivered to a real SMTP server. */
import t, { type Test } from 'tap';
import type { TestRuntime } from '../harness/startTestRuntime.ts';
import { linkIn, startSmtpSink, type SmtpSink } from '../email/smtpSink.ts';
import { bearer, eachBackend, signIn, type Site } from './authHarness.ts';

const USER = { email: 'ada@example.com', password: 'first-password-1' };

/** Path and query of a link, for inject. */
const pathOf = (link: string) => { const u = new URL(link); return `${u.pathname}${u.search}`; };

async function setup(t: Test, site: Site) {
  const sink = await startSmtpSink();
  t.teardown(() => sink.close());
  const rt = await site.boot({
    auth: { signUp: true, rateLimit: { enabled: false } },
    email: { provider: 'smtp', from: 'OSR <no-reply@example.com>', smtp: { host: '127.0.0.1', port: sink.port } },
  });
  const admin = await signIn(rt);
  const created = await rt.inject({ method: 'POST', url: '/api/v1/auth/admin/create-user', headers: bearer(admin.token), payload: { ...USER, name: 'Ada' } });
  t.equal(created.statusCode, 201, 'user created');
  return { sink, rt };
}

/** Ask for a reset mail and return the token of its link (through the link's redirect). */
async function resetToken(t: Test, rt: TestRuntime, sink: SmtpSink, env: string): Promise<string> {
  const asked = await rt.inject({ method: 'POST', url: '/api/v1/auth/request-password-reset', payload: { email: USER.email } });
  t.equal(asked.statusCode, 200, 'reset requested');
  const mail = await sink.next(USER.email);
  t.equal(mail.subject, 'Reset your password');
  const link = linkIn(mail.text);
  t.match(link, new RegExp(`/api/v1/environments/${env}/auth/reset-password/[A-Za-z0-9_-]+\\?callbackURL=%2F$`), 'the link addresses the environment');
  const followed = await rt.inject({ url: pathOf(link) });
  t.equal(followed.statusCode, 302, 'the link redirects to the app with the token');
  const token = new URL(String(followed.headers.location), 'http://x').searchParams.get('token');
  t.ok(token, 'a token in the redirect');
  return token!;
}

const reset = (rt: TestRuntime, token: string, newPassword: string) =>
  rt.inject({ method: 'POST', url: '/api/v1/auth/reset-password', payload: { token, newPassword } });

t.test('password reset', async (t) => {
  await eachBackend(t, ['main'], async (t, site) => {
    const { sink, rt } = await setup(t, site);
    const [env] = site.ids as [string];

    await t.test('mail -> link -> new password; every old session is revoked; the token is spent', async (t) => {
      const a = await signIn(rt, USER.email, USER.password);
      const b = await signIn(rt, USER.email, USER.password);
      t.equal((await rt.inject({ url: '/api/v1/keys', headers: bearer(a.token) })).statusCode, 200, 'session A works');
      t.equal((await rt.inject({ url: '/api/v1/keys', headers: { cookie: b.cookie } })).statusCode, 200, 'session B works');

      const token = await resetToken(t, rt, sink, env);
      const done = await reset(rt, token, 'second-password-2');
      t.equal(done.statusCode, 200, done.body);
      t.same(done.json(), { status: true });

      t.equal((await rt.inject({ url: '/api/v1/keys', headers: bearer(a.token) })).statusCode, 401, 'session A: 401 after the reset');
      t.equal((await rt.inject({ url: '/api/v1/keys', headers: { cookie: b.cookie } })).statusCode, 401, 'session B: 401 after the reset');
      t.equal((await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-in', payload: USER })).statusCode, 401, 'the old password is refused');
      await signIn(rt, USER.email, 'second-password-2');

      const again = await reset(rt, token, 'third-password-3');
      t.equal(again.statusCode, 400, 'the token cannot be used twice');
      t.match(again.json(), { error: { code: 'VALIDATION_ERROR', details: { reason: 'INVALID_TOKEN' } } });
      t.equal((await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-in', payload: { email: USER.email, password: 'third-password-3' } })).statusCode, 401, 'and set nothing');
    });

    await t.test('a reset spends the older links of the same user too', async (t) => {
      const older = await resetToken(t, rt, sink, env);
      const newer = await resetToken(t, rt, sink, env);
      t.equal((await reset(rt, newer, 'fourth-password-4')).statusCode, 200);
      const late = await reset(rt, older, 'fifth-password-5');
      t.equal(late.statusCode, 400, 'the older link is dead');
      t.equal(late.json().error.details.reason, 'INVALID_TOKEN');
      await signIn(rt, USER.email, 'fourth-password-4');
    });

    await t.test('an expired link is refused', async (t) => {
      const token = await resetToken(t, rt, sink, env);
      const [row] = await site.query(env, 'select "expiresAt" as e from sys_verification where identifier = ?', [`reset-password:${token}`]);
      t.ok(row, 'the token is stored');
      const past = typeof row!.e === 'number' ? Date.now() - 1000 : new Date(Date.now() - 1000).toISOString();
      await site.query(env, 'update sys_verification set "expiresAt" = ? where identifier = ?', [past, `reset-password:${token}`]);
      const link = await rt.inject({ url: `/api/v1/auth/reset-password/${token}?callbackURL=%2F` });
      t.equal(link.statusCode, 302);
      t.match(String(link.headers.location), /error=INVALID_TOKEN/, 'the link redirects with an error');
      const res = await reset(rt, token, 'sixth-password-6');
      t.equal(res.statusCode, 400);
      t.equal(res.json().error.details.reason, 'INVALID_TOKEN');
    });

    await t.test('an unknown address answers the same and sends nothing', async (t) => {
      const before = sink.mails.length;
      const res = await rt.inject({ method: 'POST', url: '/api/v1/auth/request-password-reset', payload: { email: 'nobody@example.com' } });
      t.equal(res.statusCode, 200);
      t.equal(res.json().status, true);
      t.equal(sink.mails.length, before, 'no mail');
    });
  });
});

t.test('email verification', async (t) => {
  await eachBackend(t, ['main'], async (t, site) => {
    const { sink, rt } = await setup(t, site);
    const [env] = site.ids as [string];
    const verified = async (email: string) => {
      const [row] = await site.query(env, 'select "emailVerified" as v from sys_user where email = ?', [email]);
      return Boolean(row?.v);
    };

    await t.test('sign-up mails a link; following it marks the address verified', async (t) => {
      const res = await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-up/email', payload: { email: 'new@example.com', password: 'new-password-1', name: 'New' } });
      t.equal(res.statusCode, 200, res.body);
      const mail = await sink.next('new@example.com');
      t.equal(mail.subject, 'Confirm your email address');
      const link = linkIn(mail.text);
      t.match(link, new RegExp(`/api/v1/environments/${env}/auth/verify-email\\?token=`));
      t.equal(await verified('new@example.com'), false, 'not verified yet');
      const followed = await rt.inject({ url: pathOf(link) });
      t.ok(followed.statusCode === 200 || followed.statusCode === 302, `the link answers (${followed.statusCode})`);
      t.equal(await verified('new@example.com'), true, 'verified');
    });

    await t.test('on request, for a signed-in user', async (t) => {
      const { token } = await signIn(rt, USER.email, USER.password);
      const res = await rt.inject({ method: 'POST', url: '/api/v1/auth/send-verification-email', headers: bearer(token), payload: { email: USER.email } });
      t.equal(res.statusCode, 200, res.body);
      const link = linkIn((await sink.next(USER.email)).text);
      t.equal(await verified(USER.email), false);
      await rt.inject({ url: pathOf(link) });
      t.equal(await verified(USER.email), true, 'verified');
      const forged = await rt.inject({ url: `/api/v1/auth/verify-email?token=${encodeURIComponent('not.a.token')}` });
      t.ok(forged.statusCode >= 300, `a forged token is refused (${forged.statusCode})`);
    });
  });
});

t.test('emailVerification.required: no sign-in before the address is verified', async (t) => {
  await eachBackend(t, ['main'], async (t, site) => {
    const sink = await startSmtpSink();
    t.teardown(() => sink.close());
    const rt = await site.boot({
      auth: { rateLimit: { enabled: false }, emailVerification: { required: true } },
      email: { provider: 'smtp', from: 'no-reply@example.com', smtp: { host: '127.0.0.1', port: sink.port } },
    });
    const [env] = site.ids as [string];
    const refused = await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-in', payload: { email: 'admin@example.com', password: 'admin-password-1' } });
    t.equal(refused.statusCode, 403, 'an unverified account cannot sign in');
    t.match(refused.json(), { error: { code: 'PERMISSION_DENIED', details: { reason: 'EMAIL_NOT_VERIFIED' } } });
    t.notOk(refused.headers['set-cookie'], 'no session');
    const mail = await sink.next('admin@example.com');
    t.equal(mail.subject, 'Confirm your email address', 'the refused attempt mailed a link');
    await rt.inject({ url: pathOf(linkIn(mail.text)) });
    const [row] = await site.query(env, 'select "emailVerified" as v from sys_user where email = ?', ['admin@example.com']);
    t.ok(Boolean(row!.v), 'verified by the link');
    await signIn(rt);
  });
});
