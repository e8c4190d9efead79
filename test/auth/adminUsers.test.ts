/** Admin user creation, one-time passwords, and the forced password change. */
import t from 'tap';
import { bearer, eachBackend, signIn } from './authHarness.ts';

t.test('admin create-user and PASSWORD_EXPIRED', async (t) => {
  await eachBackend(t, ['main'], async (t, site) => {
    const rt = await site.boot();
    const [env] = site.ids as [string];
    const admin = await signIn(rt);
    const create = (payload: object, headers = bearer(admin.token)) =>
      rt.inject({ method: 'POST', url: '/api/v1/auth/admin/create-user', headers, payload });

    await t.test('a generated one-time password is returned once and never stored in clear', async (t) => {
      const res = await create({ email: 'New.User@Example.com', name: 'New User', generatePassword: true });
      t.equal(res.statusCode, 201);
      const body = res.json();
      t.match(body.user, { email: 'new.user@example.com', name: 'New User', role: 'user', mustChangePassword: true });
      t.match(body.temporaryPassword, /^[A-Za-z2-9]{16}$/);
      const dump = await site.dump(env);
      t.ok(dump.includes('new.user@example.com'), 'the dump covers the users');
      t.notOk(dump.includes(body.temporaryPassword), 'the password is in no column of any table');
      const account = await site.query(env, 'select password from sys_account where "userId" = ?', [body.user.id]);
      t.match(account[0]!.password, /^[0-9a-f]+:[0-9a-f]+$/, 'only a salted hash is kept');
      t.notOk(JSON.stringify((await rt.inject({ url: '/api/v1/auth/get-session', headers: bearer(admin.token) })).json()).includes(body.temporaryPassword));
    });

    await t.test('must change password: 403 PASSWORD_EXPIRED until changed, then 200', async (t) => {
      const { temporaryPassword, user } = (await create({ email: 'rotate@example.com', generatePassword: true })).json();
      const session = await signIn(rt, 'rotate@example.com', temporaryPassword);
      t.equal(session.user.mustChangePassword, true, 'sign-in works and says so');
      const expired = { error: { code: 'PASSWORD_EXPIRED', message: 'The password of this account must be changed before it can be used: POST /api/v1/auth/change-password { "currentPassword", "newPassword" } with this credential.', details: { subjectId: user.id } } };
      for (const [method, url] of [['GET', '/api/v1/keys'], ['POST', '/api/v1/keys'], ['GET', '/api/v1/auth/list-sessions'], ['POST', '/api/v1/auth/update-user']] as const) {
        const res = await rt.inject({ method, url, headers: bearer(session.token), payload: method === 'POST' ? {} : undefined });
        t.equal(res.statusCode, 403, `${method} ${url}`);
        t.match(res.json(), expired);
      }
      const viaCookie = await rt.inject({ url: '/api/v1/keys', headers: { cookie: session.cookie } });
      t.equal(viaCookie.statusCode, 403, 'by cookie too');
      const cleared = await rt.inject({ method: 'POST', url: '/api/v1/auth/update-user', headers: { ...bearer(session.token) }, payload: { must_change_password: false } });
      t.equal(cleared.statusCode, 403, 'the flag cannot be cleared by hand');
      const read = await rt.inject({ url: '/api/v1/auth/get-session', headers: bearer(session.token) });
      t.equal(read.statusCode, 200, 'reading the session is allowed');

      const wrong = await rt.inject({ method: 'POST', url: '/api/v1/auth/change-password', headers: bearer(session.token), payload: { currentPassword: 'not-it-at-all', newPassword: 'my-own-password-1' } });
      t.equal(wrong.statusCode, 400, 'a wrong current password changes nothing');
      t.equal((await rt.inject({ url: '/api/v1/keys', headers: bearer(session.token) })).statusCode, 403);

      const change = await rt.inject({ method: 'POST', url: '/api/v1/auth/change-password', headers: bearer(session.token), payload: { currentPassword: temporaryPassword, newPassword: 'my-own-password-1' } });
      t.equal(change.statusCode, 200);
      t.equal(change.json().token, session.token, "the answer holds the session's own bearer token");
      t.equal(change.json().user.must_change_password, false, 'and the user as stored now');
      t.equal((await rt.inject({ url: '/api/v1/keys', headers: bearer(session.token) })).statusCode, 200, 'allowed once changed');
      const changedByCookie = await rt.inject({ method: 'POST', url: '/api/v1/auth/change-password', headers: { cookie: session.cookie, origin: 'http://localhost' }, payload: { currentPassword: 'my-own-password-1', newPassword: 'my-own-password-2' } });
      t.equal(changedByCookie.statusCode, 200, changedByCookie.body);
      t.equal((await rt.inject({ url: '/api/v1/keys', headers: bearer(changedByCookie.json().token) })).statusCode, 200, 'a change made with the cookie answers a usable bearer token');
      const revoking = await rt.inject({ method: 'POST', url: '/api/v1/auth/change-password', headers: bearer(session.token), payload: { currentPassword: 'my-own-password-2', newPassword: 'my-own-password-1', revokeOtherSessions: true } });
      t.equal(revoking.statusCode, 200, revoking.body);
      t.not(revoking.json().token, session.token, 'revoking other sessions answers a new session');
      t.equal((await rt.inject({ url: '/api/v1/keys', headers: bearer(revoking.json().token) })).statusCode, 200, 'whose token is a usable bearer token');
      t.equal((await rt.inject({ url: '/api/v1/keys', headers: bearer(session.token) })).statusCode, 401, 'the old session is gone');
      session.token = revoking.json().token;
      const flag = await site.query(env, 'select must_change_password as f from sys_user where id = ?', [user.id]);
      t.notOk(flag[0]!.f, 'the flag is cleared in the database');
      t.equal((await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-in', payload: { email: 'rotate@example.com', password: temporaryPassword } })).statusCode, 401, 'the one-time password is spent');
      const out = await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-out', headers: bearer(session.token) });
      t.equal(out.statusCode, 200, 'sign-out works');
    });

    await t.test('a refused new password names the bound', async (t) => {
      await create({ email: 'bounds@example.com', password: 'given-password-9' });
      const own = await signIn(rt, 'bounds@example.com', 'given-password-9');
      const short = await rt.inject({ method: 'POST', url: '/api/v1/auth/change-password', headers: bearer(own.token), payload: { currentPassword: 'given-password-9', newPassword: 'short' } });
      t.equal(short.statusCode, 400, 'a too short password is refused');
      t.match(short.json().error, { code: 'VALIDATION_ERROR', message: 'The request is not valid: the password is too short: use at least 8 characters', details: { reason: 'PASSWORD_TOO_SHORT', minLength: 8, maxLength: 128 } }, 'naming the minimum');
      const long = await rt.inject({ method: 'POST', url: '/api/v1/auth/change-password', headers: bearer(own.token), payload: { currentPassword: 'given-password-9', newPassword: 'x'.repeat(129) } });
      t.match(long.json().error, { code: 'VALIDATION_ERROR', details: { reason: 'PASSWORD_TOO_LONG', maxLength: 128 } }, 'a too long one names the maximum');
      t.match(long.json().error.message, 'use at most 128 characters');
    });

    await t.test('sign-out is allowed while the password is expired', async (t) => {
      const { temporaryPassword } = (await create({ email: 'leave@example.com', generatePassword: true })).json();
      const session = await signIn(rt, 'leave@example.com', temporaryPassword);
      t.equal((await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-out', headers: bearer(session.token) })).statusCode, 200);
      t.equal((await rt.inject({ url: '/api/v1/auth/get-session', headers: bearer(session.token) })).body, 'null');
    });

    await t.test('a given password, mustChangePassword as asked', async (t) => {
      const res = await create({ email: 'given@example.com', password: 'given-password-1' });
      t.equal(res.statusCode, 201);
      t.equal(res.json().user.mustChangePassword, false);
      t.notOk('temporaryPassword' in res.json(), 'nothing to return');
      const forced = await create({ email: 'forced@example.com', password: 'given-password-1', mustChangePassword: true });
      t.equal(forced.json().user.mustChangePassword, true);
      const relaxed = await create({ email: 'relaxed@example.com', generatePassword: true, mustChangePassword: false });
      t.equal(relaxed.json().user.mustChangePassword, false, 'a generated password without forced rotation, when asked');
      const s = await signIn(rt, 'given@example.com', 'given-password-1');
      t.equal((await rt.inject({ url: '/api/v1/keys', headers: bearer(s.token) })).statusCode, 200);
      for (const field of ['must_change_password', 'phone_number_verified', 'role']) {
        const res = await rt.inject({ method: 'POST', url: '/api/v1/auth/update-user', headers: bearer(s.token), payload: { [field]: field === 'role' ? 'admin' : true } });
        t.equal(res.statusCode, 400, `a user cannot set ${field} on itself`);
      }
      const row = await site.query(env, 'select must_change_password as m, phone_number_verified as p, role from sys_user where id = ?', [s.user.id]);
      t.match(row[0], { role: 'user' });
      t.notOk(row[0]!.m, 'must_change_password unchanged');
      t.notOk(row[0]!.p, 'phone_number_verified unchanged');
    });

    await t.test('refusals: non-admins, duplicates, bad input', async (t) => {
      await create({ email: 'plain@example.com', password: 'plain-password-1' });
      const plain = await signIn(rt, 'plain@example.com', 'plain-password-1');
      const denied = await create({ email: 'x@example.com' }, bearer(plain.token));
      t.equal(denied.statusCode, 403);
      t.match(denied.json(), { error: { code: 'PERMISSION_DENIED', details: { permission: 'users:admin', subjectId: plain.user.id } } });
      const importDenied = await rt.inject({ method: 'POST', url: '/api/v1/auth/admin/import-users', headers: bearer(plain.token), payload: { rows: [] } });
      t.match(importDenied.json(), { error: { code: 'PERMISSION_DENIED', details: { permission: 'users:admin' } } });
      t.equal((await create({ email: 'x@example.com' }, {} as { authorization: string })).statusCode, 401, 'anonymous');

      const dup = await create({ email: 'PLAIN@example.com' });
      t.equal(dup.statusCode, 409);
      t.equal(dup.json().error.code, 'CONFLICT');
      const both = await create({ email: 'both@example.com', password: 'long-enough-1', generatePassword: true });
      t.equal(both.statusCode, 400);
      t.match(both.json().error.details.errors, [{ path: 'body/password' }]);
      const short = await create({ email: 'short@example.com', password: 'short' });
      t.equal(short.statusCode, 400);
      const notEmail = await create({ email: 'not-an-email' });
      t.equal(notEmail.statusCode, 400);
      t.match(notEmail.json().error.details.errors, [{ path: 'body/email' }]);
      const extra = await create({ email: 'role@example.com', role: 'admin' });
      t.equal(extra.statusCode, 400, 'a role cannot be passed');
    });
  });
});
