/**
 * What the audit trail does not record, on both drivers: a refusal that did nothing (a rate limit,
 * an unknown route), an attempted identifier that is not an email or phone number; and an event
 * that cannot be stored at an HTTP edge is logged without failing the request.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import t from 'tap';
import { ADMIN, bearer, eachBackend } from '../auth/authHarness.ts';

type Row = Record<string, unknown>;
const parse = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v);

t.test('refusals that did nothing are not audit events', async (t) => {
  await eachBackend(t, ['audit-ref'], async (t, site) => {
    const logs: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n')) if (line.trim()) logs.push(JSON.parse(line));
        done();
      },
    });
    const rt = await site.boot({
      logger: pino({ level: 'info' }, sink),
      auth: { rateLimit: { signIn: { perIp: { max: 3, windowSeconds: 600 }, perAccount: { max: 100, windowSeconds: 600 } } } },
    });
    const env = site.ids[0]!;
    const failures = async (): Promise<Row[]> => site.query(env, "select * from sys_audit_event where action = 'auth.sign_in_failed' order by occurred_at, id");
    const post = (url: string, payload: Record<string, unknown>, ip: string) => rt.inject({ method: 'POST', url, payload, remoteAddress: ip });

    await t.test('an unknown sign-in route (404) is not recorded', async (t) => {
      const res = await post('/api/v1/auth/sign-in/no-such-method', { email: ADMIN.email, password: 'x' }, '10.9.0.1');
      t.equal(res.statusCode, 404, res.body);
      t.same(await failures(), [], 'no event');
    });

    await t.test('a password typed into the email box is never the target label', async (t) => {
      const typed = 'Tr0ub4dor&3-horse';
      const codes: number[] = [];
      for (const url of ['/api/v1/auth/sign-in', '/api/v1/auth/sign-in/email']) codes.push((await post(url, { email: typed, password: 'x' }, '10.9.0.3')).statusCode);
      t.same(codes, [400, 400], 'refused as an invalid email');
      const rows = await failures();
      t.same(rows.map((r) => [r.target_type, r.target_label, r.outcome, parse(r.after).method]), [['user', null, 'failure', 'password'], ['user', null, 'failure', 'sign-in.email']], 'both failures recorded, without a label');
      t.notOk(JSON.stringify(await site.query(env, 'select * from sys_audit_event')).includes('Tr0ub4dor'), 'the typed value is in no row');
      await site.query(env, "delete from sys_audit_event where action = 'auth.sign_in_failed'");
    });

    await t.test('a rate-limited sign-in (429) is not recorded; the real failures before it are', async (t) => {
      const codes: number[] = [];
      for (const url of ['/api/v1/auth/sign-in', '/api/v1/auth/sign-in/email', '/api/v1/auth/sign-in', '/api/v1/auth/sign-in/email', '/api/v1/auth/sign-in']) {
        codes.push((await post(url, { email: ADMIN.email, password: 'wrong-password-1' }, '10.9.0.2')).statusCode);
      }
      t.same(codes, [401, 401, 401, 429, 429]);
      const rows = await failures();
      t.same(rows.map((r) => [r.target_label, r.ip, parse(r.after).status]), [[ADMIN.email, '10.9.0.2', 401], [ADMIN.email, '10.9.0.2', 401], [ADMIN.email, '10.9.0.2', 401]], 'the three credential failures only');
    });

    await t.test('an event that cannot be stored at an HTTP edge is logged; the request succeeds', async (t) => {
      await site.query(env, 'drop table sys_audit_event');
      const signedIn = await post('/api/v1/auth/sign-in', { email: ADMIN.email, password: ADMIN.password }, '10.9.0.4');
      t.equal(signedIn.statusCode, 200, 'the sign-in succeeds');
      const token = String(signedIn.json().token);
      const minted = await rt.inject({ method: 'POST', url: '/api/v1/keys', headers: bearer(token), payload: { name: 'after the drop' } });
      t.equal(minted.statusCode, 201, 'a key is minted');
      const lines = logs.filter((l) => l.msg === 'audit: the event could not be stored; the request it records went on');
      t.same(lines.map((l) => [l.level, l.action, l.environmentId]), [[50, 'auth.sign_in', env], [50, 'api_key.minted', env]], 'one error line per lost event');
      t.ok(lines.every((l) => typeof (l.err as { message?: unknown } | undefined)?.message === 'string'), 'with the cause');
      t.match(lines[1], { targetType: 'api_key', targetId: minted.json().id });
      t.notOk(JSON.stringify(lines).includes(String(minted.json().key)), 'the log line holds no key');

      // A change recorded in its own transaction cannot happen without its event.
      const set = await rt.inject({ method: 'POST', url: '/api/v1/data/sys_permission_set', headers: bearer(token), payload: { name: 'unrecorded' } });
      t.equal(set.statusCode, 500, 'a change of an access object fails with its event');
      t.same(await site.query(env, "select name from sys_permission_set where name = 'unrecorded'"), [], 'and is rolled back');
    });
  });
});
