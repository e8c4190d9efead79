/** The audit trail on both drivers: one event per audited action, admins-only reads, no secret in any row. */
import t from 'tap';
import type { LifecycleRetention } from '../../capabilities/lifecycleRetention.ts';
import { ADMIN, bearer, eachBackend, signIn } from '../auth/authHarness.ts';
import { addUser, sendAs } from '../access/accessWorld.ts';

type Row = Record<string, unknown>;
/** A json column as read back: text on SQLite, parsed on PostgreSQL. */
const parse = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v);

t.test('the audit trail', async (t) => {
  await eachBackend(t, ['audit'], async (t, site) => {
    const rt = await site.boot({ config: { apps: ['test/access/fixtures/app'] } });
    const env = site.ids[0]!;
    const admin = await signIn(rt, ADMIN.email, ADMIN.password, { 'user-agent': 'audit-test/1.0' });
    const as = (token: string, method: string, url: string, payload?: unknown) => sendAs(rt, token, method, url, payload);
    /** Every value the test uses that must never be stored in an audit row. */
    const secrets: string[] = [ADMIN.password, admin.token];
    const events = async (): Promise<Row[]> => site.query(env, 'select * from sys_audit_event order by occurred_at, id');
    const actions = async () => (await events()).map((r) => String(r.action));

    await t.test('sign-in success and failure, sign-out', async (t) => {
      const wrong = 'not-the-password-42';
      secrets.push(wrong);
      const failed = await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-in', headers: { 'user-agent': 'audit-test/2.0' }, payload: { email: ADMIN.email, password: wrong } });
      t.equal(failed.statusCode, 401);
      const engineFailed = await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-in/email', payload: { email: 'nobody@example.com', password: wrong } });
      t.equal(engineFailed.statusCode, 401);
      const second = await signIn(rt);
      secrets.push(second.token);
      const out = await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-out', headers: bearer(second.token) });
      t.equal(out.statusCode, 200);
      const rows = await events();
      const signIns = rows.filter((r) => r.action === 'auth.sign_in');
      t.equal(signIns.length, 2, 'both sign-ins are recorded');
      t.equal(signIns[0]!.actor_id, String(admin.user.id));
      t.equal(signIns[0]!.actor_kind, 'user');
      t.equal(signIns[0]!.user_agent, 'audit-test/1.0', 'the user agent is kept');
      t.equal(signIns[0]!.ip, '127.0.0.1', 'the client address is kept');
      t.equal(signIns[0]!.environment_id, env);
      t.ok(String(signIns[0]!.occurred_at).length > 0);
      const failures = rows.filter((r) => r.action === 'auth.sign_in_failed');
      t.same(failures.map((r) => [r.outcome, r.target_label, r.actor_kind]), [['failure', ADMIN.email, 'anonymous'], ['failure', 'nobody@example.com', 'anonymous']], 'failures name the attempted account');
      t.equal(failures[0]!.user_agent, 'audit-test/2.0');
      const signOut = rows.filter((r) => r.action === 'auth.sign_out');
      t.same(signOut.map((r) => r.actor_id), [String(admin.user.id)], 'the sign-out is recorded with its user');
    });

    let member: { id: string; token: string };
    await t.test('users created, keys minted and revoked', async (t) => {
      member = await addUser(rt, admin.token, 'Member');
      secrets.push('pw-Member-0123456789', member.token);
      const key = await as(admin.token, 'POST', '/api/v1/keys', { name: 'ci key', scopes: ['data:read'] });
      t.equal(key.status, 201);
      secrets.push(key.body.key);
      const revoked = await as(admin.token, 'DELETE', `/api/v1/keys/${key.body.id}`);
      t.equal(revoked.status, 204);
      const rows = await events();
      const created = rows.find((r) => r.action === 'user.created')!;
      t.match(created, { target_type: 'user', target_id: member.id, target_label: 'member@example.com', actor_id: String(admin.user.id) });
      const minted = rows.find((r) => r.action === 'api_key.minted')!;
      t.match(minted, { target_type: 'api_key', target_id: key.body.id, target_label: 'ci key' });
      t.match(parse(minted.after), { name: 'ci key', scopes: ['data:read'] });
      t.equal(rows.filter((r) => r.action === 'api_key.revoked' && r.target_id === key.body.id).length, 1);
    });

    await t.test('permission sets, positions, assignments are recorded with a before/after summary', async (t) => {
      const set = await as(admin.token, 'POST', '/api/v1/data/sys_permission_set', { name: 'auditors', objects: { doc: { read: true } } });
      t.equal(set.status, 201);
      const patched = await as(admin.token, 'PATCH', `/api/v1/data/sys_permission_set/${set.body.id}`, { label: 'Auditors' });
      t.equal(patched.status, 200);
      const position = await as(admin.token, 'POST', '/api/v1/data/sys_position', { name: 'clerk' });
      t.equal(position.status, 201);
      const assigned = await as(admin.token, 'POST', '/api/v1/data/sys_user_position', { user_id: member.id, position: position.body.id });
      t.equal(assigned.status, 201);
      const removed = await as(admin.token, 'DELETE', `/api/v1/data/sys_user_position/${assigned.body.id}`);
      t.equal(removed.status, 204);
      const rows = await events();
      const setEvents = rows.filter((r) => r.action === 'permission_set.changed');
      t.equal(setEvents.length, 2, 'create and update');
      t.equal(parse(setEvents[0]!.before), null);
      t.match(parse(setEvents[0]!.after), { name: 'auditors', objects: { doc: { read: true } } });
      t.match(parse(setEvents[1]!.before), { label: null });
      t.match(parse(setEvents[1]!.after), { label: 'Auditors' });
      t.equal(setEvents[1]!.ip, '127.0.0.1', 'a data-path change keeps the client address too');
      t.equal(rows.filter((r) => r.action === 'position.changed').length, 1);
      const assignments = rows.filter((r) => r.action === 'assignment.changed');
      t.equal(assignments.length, 2, 'assignment made and removed');
      t.equal(parse(assignments[1]!.after), null, 'a removal has no after');
    });

    await t.test('admins only, read-only through the API', async (t) => {
      const list = await as(admin.token, 'GET', '/api/v1/data/sys_audit_event?limit=200');
      t.equal(list.status, 200);
      t.ok(list.body.items.length >= 8);
      const denied = await as(member.token, 'GET', '/api/v1/data/sys_audit_event');
      t.equal(denied.status, 403, 'a member reads none');
      const set = await as(admin.token, 'POST', '/api/v1/data/sys_permission_set', { name: 'trail_readers', objects: { sys_audit_event: { read: true, viewAll: true } } });
      t.equal(set.status, 201);
      t.equal((await as(admin.token, 'POST', '/api/v1/data/sys_user_permission_set', { user_id: member.id, permission_set: set.body.id })).status, 201);
      const granted = await as(member.token, 'GET', '/api/v1/data/sys_audit_event');
      t.equal(granted.status, 403, 'a permission set naming the trail grants nothing: admins only');
      t.notOk(JSON.stringify(granted.body).includes('auth.sign_in'));
      const write = await as(admin.token, 'POST', '/api/v1/data/sys_audit_event', { action: 'auth.sign_in', occurred_at: new Date().toISOString(), environment_id: env, actor_kind: 'user' });
      t.equal(write.status, 403, 'not even an admin writes an event');
      t.equal(write.body.error.code, 'SYSTEM_OBJECT_READ_ONLY');
      const id = list.body.items[0].id;
      const del = await as(admin.token, 'DELETE', `/api/v1/data/sys_audit_event/${id}`);
      t.equal(del.status, 403, 'nor deletes one');
    });

    await t.test('lifecycle lists audit.log (90 days) and system.activity (14 days)', async (t) => {
      const lifecycle = rt.runtime.kernel.service<LifecycleRetention>('lifecycle.retention')!;
      const report = await lifecycle.run({ dryRun: true, environmentId: env });
      const contracts = report.environments[0]!.contracts;
      t.match(contracts.filter((c) => c.name === 'audit.log'), [{ object: 'sys_audit_event', keepDays: 90, status: 'applied', rows: 0 }]);
      const activity = contracts.filter((c) => c.name === 'system.activity');
      t.same(activity.map((c) => [c.object, c.keepDays]).sort(), [['osr_hook_delivery', 14], ['sys_job', 14]]);
    });

    await t.test('no row holds a password, token or key the test used', async (t) => {
      const rows = await events();
      const dump = JSON.stringify(rows);
      t.ok(rows.length >= 10, `${rows.length} events`);
      for (const secret of secrets) t.notOk(dump.includes(secret), `no row holds ${secret.slice(0, 6)}…`);
      t.ok(new Set(await actions()).size >= 8);
    });
  });
});
