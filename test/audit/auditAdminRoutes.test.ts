/**
 * The auth engine's admin routes in the audit trail, on both drivers: each called through HTTP
 * (set role, update, impersonate and stop, revoke one session and all, remove), a user revoking
 * their own sessions, and no session token in any row.
 */
import t from 'tap';
import { addUser, sendAs } from '../access/accessWorld.ts';
import { ADMIN, bearer, eachBackend, signIn } from '../auth/authHarness.ts';

type Row = Record<string, unknown>;
const parse = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v);

t.test("the engine's admin routes are audited", async (t) => {
  await eachBackend(t, ['audit-adm'], async (t, site) => {
    const rt = await site.boot({ auth: { rateLimit: { enabled: false } } });
    const env = site.ids[0]!;
    const admin = await signIn(rt);
    const adminId = String(admin.user.id);
    const events = async (action: string): Promise<Row[]> => site.query(env, 'select * from sys_audit_event where action = ? order by occurred_at, id', [action]);
    const must = async (token: string, path: string, payload: unknown, status = 200) => {
      const res = await sendAs(rt, token, 'POST', `/api/v1/auth${path}`, payload);
      t.equal(res.status, status, `${path}: ${JSON.stringify(res.body).slice(0, 300)}`);
      return res.body;
    };
    const secrets: string[] = [ADMIN.password, admin.token];
    const alice = await addUser(rt, admin.token, 'Alice');
    const bob = await addUser(rt, admin.token, 'Bob');
    const carol = await addUser(rt, admin.token, 'Carol');
    secrets.push(alice.token, bob.token, carol.token);

    await t.test('set role and update a user', async (t) => {
      await must(admin.token, '/admin/set-role', { userId: alice.id, role: 'admin' });
      await must(admin.token, '/admin/set-role', { userId: alice.id, role: 'user' });
      t.same((await events('user.role_changed')).map((r) => [r.actor_id, r.target_type, r.target_id, parse(r.after).role]), [[adminId, 'user', alice.id, 'admin'], [adminId, 'user', alice.id, 'user']]);
      await must(admin.token, '/admin/update-user', { userId: alice.id, data: { name: 'Alice Lee' } });
      t.same((await events('user.updated')).map((r) => [r.actor_id, r.target_id, parse(r.after).fields]), [[adminId, alice.id, ['name']]], 'the fields changed, not their values');
      const refused = await sendAs(rt, alice.token, 'POST', '/api/v1/auth/admin/set-role', { userId: alice.id, role: 'admin' });
      t.equal(refused.status, 403, 'a member may not');
      t.equal((await events('user.role_changed')).length, 2, 'a refused change is no event');
    });

    await t.test('impersonation started and stopped', async (t) => {
      const started = await rt.inject({ method: 'POST', url: '/api/v1/auth/admin/impersonate-user', headers: bearer(admin.token), payload: { userId: bob.id } });
      t.equal(started.statusCode, 200, started.body);
      const token = String(started.headers['set-auth-token'] ?? '');
      t.ok(token.length > 0, 'a session as the user');
      secrets.push(token, String(started.json().session?.token ?? 'no-token'));
      const me = await rt.inject({ url: '/api/v1/auth/get-session', headers: bearer(token) });
      t.equal(me.json().user?.id, bob.id, 'acting as the user');
      // The engine finds the admin's own session again in the cookie it set (a browser sends it back).
      const jar = new Map<string, string>();
      for (const set of ([] as string[]).concat(started.headers['set-cookie'] ?? [])) {
        const [name, value] = set.split(';')[0]!.split(/=(.*)/s) as [string, string];
        if (value === '') jar.delete(name);
        else jar.set(name, value);
      }
      secrets.push(...[...jar.values()].map((v) => decodeURIComponent(v).split('.')[0]!).filter((v) => v.length > 8));
      const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
      const stopped = await rt.inject({ method: 'POST', url: '/api/v1/auth/admin/stop-impersonating', headers: { cookie, origin: 'http://localhost:80' } });
      t.equal(stopped.statusCode, 200, stopped.body);
      t.match(await events('user.impersonation_started'), [{ actor_id: adminId, actor_kind: 'user', target_type: 'user', target_id: bob.id }]);
      t.match(await events('user.impersonation_stopped'), [{ actor_id: adminId, actor_kind: 'user', target_type: 'user', target_id: bob.id }], 'the admin stopped acting as the user');
    });

    await t.test('sessions revoked: one, then all of a user', async (t) => {
      const second = await signIn(rt, 'bob@example.com', 'pw-Bob-0123456789');
      secrets.push(second.token);
      const listed = await must(admin.token, '/admin/list-user-sessions', { userId: bob.id }) as { sessions: Array<{ token: string }> };
      t.ok(listed.sessions.length >= 2, `${listed.sessions.length} sessions`);
      const sessionToken = listed.sessions[0]!.token;
      secrets.push(...listed.sessions.map((s) => s.token));
      await must(admin.token, '/admin/revoke-user-session', { sessionToken });
      await must(admin.token, '/admin/revoke-user-sessions', { userId: bob.id });
      t.equal((await sendAs(rt, bob.token, 'GET', '/api/v1/auth/get-session')).body, null, 'the user is signed out');
      const rows = await events('user.sessions_revoked');
      t.same(rows.map((r) => [r.actor_id, r.target_type, r.target_id, parse(r.after)]), [
        [adminId, 'session', null, { scope: 'session', by: 'admin' }],
        [adminId, 'user', bob.id, { scope: 'all', by: 'admin' }],
      ]);
    });

    await t.test('a user revoking their own sessions', async (t) => {
      const other = await signIn(rt, 'carol@example.com', 'pw-Carol-0123456789');
      secrets.push(other.token);
      await must(carol.token, '/revoke-other-sessions', {});
      await must(carol.token, '/revoke-sessions', {});
      const rows = (await events('user.sessions_revoked')).filter((r) => r.actor_id === carol.id);
      t.same(rows.map((r) => [r.target_type, parse(r.after)]), [['user', { scope: 'others', by: 'self' }], ['user', { scope: 'all', by: 'self' }]]);
    });

    await t.test('a user removed', async (t) => {
      await must(admin.token, '/admin/remove-user', { userId: carol.id });
      t.match(await events('user.removed'), [{ actor_id: adminId, target_type: 'user', target_id: carol.id, outcome: 'success' }]);
      t.same(await site.query(env, 'select id from sys_user where id = ?', [carol.id]), [], 'the user is gone');
    });

    await t.test('no row holds a password or session token the test used', async (t) => {
      const dump = JSON.stringify(await site.query(env, 'select * from sys_audit_event'));
      for (const secret of secrets) t.notOk(dump.includes(secret), `no row holds ${secret.slice(0, 6)}…`);
    });
  });
});
