/**
 * Per-environment settings (docs/settings.md): an admin sets the `email` namespace's SMTP server
 * and password for one environment; its mail goes there while the other environment keeps the
 * config file's server; the password is in no answer, log line or database column; a member is
 * refused; a second process (a child `osr start`) uses the new settings within a second.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import t, { type Test } from 'tap';
import { ADMIN, bearer, eachBackend, SECRET, signIn } from '../auth/authHarness.ts';
import { startSmtpSink, type SmtpSink } from '../email/smtpSink.ts';
import { POSTGRES_URL } from '../harness/databases.ts';
import { redisProblem, REDIS_URL } from '../jobs/jobsHarness.ts';
import { runtimeFiles, startRuntimeProcess } from '../reliability/spawnRuntime.ts';

const PASSWORD = 'smtp-Pa55word-never-shown-7f3a';
const redisDown = await redisProblem();

/** Everything a runtime logs, as text. */
function capturedLogger() {
  let text = '';
  const stream = new Writable({ write(chunk, _enc, done) { text += chunk.toString(); done(); } });
  return { logger: pino({ level: 'trace' }, stream), text: () => text };
}

async function sinks(t: Test): Promise<{ config: SmtpSink; own: SmtpSink }> {
  const config = await startSmtpSink();
  const own = await startSmtpSink({ user: 'mailer', password: PASSWORD });
  t.teardown(async () => { await config.close(); await own.close(); });
  return { config, own };
}

t.test('email settings of one environment: its own server, write-only password, every process within a second', async (t) => {
  await eachBackend(t, ['set-a', 'set-b'], async (t, site) => {
    if (site.backend === 'sqlite' && redisDown !== null) {
      if (process.env.CI === 'true') throw new Error(`Redis is required when CI=true (SQLite processes share events over it): ${redisDown}`);
      t.comment(`skipped: Redis unreachable (${redisDown})`);
      return;
    }
    const { config, own } = await sinks(t);
    const [a, b] = site.ids as [string, string];
    const emailConfig = { provider: 'smtp', from: 'noreply@example.com', smtp: { host: '127.0.0.1', port: config.port } };
    // SQLite processes share the database file; their events cross over Redis (PostgreSQL: LISTEN/NOTIFY).
    const shared = site.backend === 'sqlite' ? { redis: { url: REDIS_URL } } : { database: { url: POSTGRES_URL } };
    const logs = capturedLogger();
    const rt = await site.boot({ email: emailConfig, logger: logs.logger, config: { ...shared, api: { requireAuth: true } } });
    const files = await runtimeFiles(t, {
      ...shared, apps: [], dataDir: site.dataDir, environments: site.ids.map((id) => ({ id })), api: { requireAuth: true },
      auth: { secret: SECRET, admin: ADMIN }, plugins: { email: emailConfig }, log: { level: 'trace' },
    });
    // A loaded machine boots slowly; the bound under test is the one after the write.
    const other = await startRuntimeProcess(t, files, 120_000);

    const answers: string[] = [];
    const inA = async (method: 'GET' | 'PUT' | 'POST', path: string, token: string, payload?: unknown) => {
      const res = await rt.inject({ method, url: `/api/v1/environments/${a}${path}`, headers: bearer(token), ...(payload === undefined ? {} : { payload: payload as object }) });
      answers.push(res.body);
      return res;
    };
    const admin = await signIn(rt, ADMIN.email, ADMIN.password, {}, `/api/v1/environments/${a}/auth/sign-in`);
    const adminB = await signIn(rt, ADMIN.email, ADMIN.password, {}, `/api/v1/environments/${b}/auth/sign-in`);
    const created = await inA('POST', '/auth/admin/create-user', admin.token, { email: 'member@example.com', password: 'member-password-1', mustChangePassword: false });
    t.equal(created.statusCode, 201);
    const member = await signIn(rt, 'member@example.com', 'member-password-1', {}, `/api/v1/environments/${a}/auth/sign-in`);

    // Before: the other process sends through the config file's server (and remembers that A has no settings).
    const mailThroughOther = async (env: string, to: string) => {
      const res = await other.send('POST', `/api/v1/environments/${env}/email/send`, { to, subject: 'hello', text: 'body' }, bearer(env === a ? admin.token : adminB.token));
      answers.push(res.text);
      t.equal(res.status, 200, `the other process sent to ${to}`);
    };
    await mailThroughOther(a, 'before@example.com');
    t.same((await config.next('before@example.com')).to, ['before@example.com'], 'before: the config file\'s server');

    // A member is refused, reading and writing.
    const memberRead = await inA('GET', '/settings/email', member.token);
    t.equal(memberRead.statusCode, 403);
    t.equal(memberRead.json().error.code, 'PERMISSION_DENIED');
    const memberWrite = await inA('PUT', '/settings/email', member.token, { smtp: { host: 'evil.example' } });
    t.equal(memberWrite.statusCode, 403);
    t.equal(memberWrite.json().error.code, 'PERMISSION_DENIED');

    // Invalid values are refused by the config file's schema, naming the path; nothing is written.
    const bad = await inA('PUT', '/settings/email', admin.token, { smtp: { port: 'twenty-five', colour: 'red' } });
    t.equal(bad.statusCode, 400);
    t.same(bad.json().error.details.errors.map((e: { path: string }) => e.path).sort(), ['smtp.colour', 'smtp.port']);
    t.equal((await inA('GET', '/settings/email', admin.token)).json().revision, 0, 'nothing was written');
    t.equal((await inA('GET', '/settings/nowhere', admin.token)).statusCode, 404, 'an unknown namespace is 404');
    // No `sms` section and no phone sign-in here: the sms plugin does not run, nothing reads the namespace.
    const inert = await inA('PUT', '/settings/sms', admin.token, { provider: 'log' });
    t.equal(inert.statusCode, 400, 'a namespace no running plugin reads refuses writes');
    t.equal(inert.json().error.code, 'SETTINGS_NOT_APPLIED');
    t.match(inert.json().error.message, /enable the plugin that reads it \(sms in the config file\)/);
    t.equal((await inA('GET', '/settings/sms', admin.token)).json().revision, 0, 'and stores nothing');

    const put = await inA('PUT', '/settings/email', admin.token, { smtp: { host: '127.0.0.1', port: own.port, user: 'mailer', password: PASSWORD } });
    const putAt = Date.now();
    t.equal(put.statusCode, 200);
    t.same(put.json().values, { smtp: { host: '127.0.0.1', port: own.port, user: 'mailer', password: { set: true } } }, 'the answer shows only that a password is set');
    t.same(put.json().secrets, { 'smtp.password': { set: true } });
    const read = await inA('GET', '/settings/email', admin.token);
    t.same(read.json().values.smtp.password, { set: true });
    const trail = await site.query(a, 'select * from sys_audit_event where action = ?', ['settings.changed']);
    t.equal(trail.length, 1, 'the change is in the audit trail');
    t.equal(trail[0]?.target_id, 'email', 'naming the namespace');
    t.notOk(JSON.stringify(trail).includes(PASSWORD), 'and never the password');
    t.equal(read.json().revision, 1);

    // The other process: within a second of the answer, its mail of environment A goes through A's server.
    let firstOwn: number | null = null;
    for (let i = 0; firstOwn === null && Date.now() - putAt < 5000; i++) {
      const to = `probe${i}@example.com`;
      const sentAt = Date.now();
      await mailThroughOther(a, to);
      if (own.mails.some((m) => m.to.includes(to))) firstOwn = sentAt - putAt;
      else t.ok(config.mails.some((m) => m.to.includes(to)), `probe ${i} went through the config file's server`);
    }
    t.ok(firstOwn !== null && firstOwn <= 1000, `the other process used the new settings ${firstOwn} ms after the write (bound: 1000)`);
    t.ok(own.logins.includes('mailer'), 'it logged in with the stored password');

    // This process too; environment B keeps the config file's server in both.
    t.equal((await inA('POST', '/email/send', admin.token, { to: 'here-a@example.com', subject: 's', text: 't' })).statusCode, 200);
    t.same((await own.next('here-a@example.com')).to, ['here-a@example.com'], "A's mail through A's server");
    const inB = await rt.inject({ method: 'POST', url: `/api/v1/environments/${b}/email/send`, headers: bearer(adminB.token), payload: { to: 'here-b@example.com', subject: 's', text: 't' } });
    t.equal(inB.statusCode, 200);
    t.same((await config.next('here-b@example.com')).to, ['here-b@example.com'], "B's mail through the config file's server");
    await mailThroughOther(b, 'there-b@example.com');
    t.same((await config.next('there-b@example.com')).to, ['there-b@example.com'], "and so in the other process");
    t.notOk(own.mails.some((m) => m.to.some((to) => to.includes('-b@'))), "no mail of B reached A's server");
    const readB = await rt.inject({ url: `/api/v1/environments/${b}/settings/email`, headers: bearer(adminB.token) });
    t.equal(readB.json().revision, 0, 'B has no settings');

    // Sent back as read, the password is kept; null clears it.
    const resent = await inA('PUT', '/settings/email', admin.token, { ...read.json().values, from: 'a@example.com' });
    t.equal(resent.statusCode, 200);
    t.same(resent.json().secrets, { 'smtp.password': { set: true } }, 'the read answer put back keeps the password');
    t.equal((await inA('POST', '/email/send', admin.token, { to: 'kept@example.com', subject: 's', text: 't' })).statusCode, 200);
    const kept = await own.next('kept@example.com');
    t.equal(kept.from, 'a@example.com', 'the new sender is used, with the kept password');

    // Nowhere in plain: answers, log lines of both processes, any column of any table.
    const needle = PASSWORD;
    t.notOk(answers.some((body) => body.includes(needle)), 'no answer holds the password');
    t.ok(logs.text().includes('settings changed'), 'the change was logged');
    t.notOk(logs.text().includes(needle), 'no log line of this process holds it');
    t.notOk(other.output().includes(needle), 'no output of the other process holds it');
    const rows = await site.query(a, 'select * from osr_settings');
    t.equal(rows.length, 1);
    t.notOk(JSON.stringify(rows).includes(needle), 'the settings table holds it only sealed');
    t.notOk((await site.dump(a)).includes(needle), 'no table of the environment holds it in plain');
    t.match(String(rows[0]!.sealed_json), /"smtp\.password":"v1\./, 'sealed (AES-256-GCM, v1)');

    const cleared = await inA('PUT', '/settings/email', admin.token, { smtp: { host: '127.0.0.1', port: own.port, password: null } });
    t.same(cleared.json().secrets, { 'smtp.password': { set: false } }, 'null clears the password');
  });
});
