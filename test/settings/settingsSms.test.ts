/**
 * The `sms` settings of one environment (docs/settings.md): an admin points environment A at its
 * own provider (Vonage, at a local server speaking its API) with its own key and secret; A's
 * sign-in codes go there while environment B keeps the config file's Twilio; the secret is in no
 * answer, log line or plain column; a member is refused; a bad value is 400 naming the path; a
 * provider chosen in settings never gets the operator's credentials; a second runtime on the same
 * database sends through the new provider within a second.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import t from 'tap';
import { addUser } from '../access/accessWorld.ts';
import { bearer, eachBackend, signIn } from '../auth/authHarness.ts';
import type { TestRuntime } from '../harness/startTestRuntime.ts';
import { redisProblem, REDIS_URL } from '../jobs/jobsHarness.ts';
import { startSmsSink } from '../sms/smsSink.ts';

const OPERATOR_SID = 'AC0123456789abcdef0123456789abcdef';
const OPERATOR_TOKEN = 'operator-twilio-token-7d21';
const OPERATOR_VONAGE_KEY = 'operator-vonage-key-5e8a';
const OPERATOR_VONAGE_SECRET = 'operator-vonage-secret-c3f0';
const TENANT_KEY = 'tenant-vonage-key-91b2';
const TENANT_SECRET = 'tenant-vonage-SECRET-never-shown-4a6d';
const VARIABLES = { SETTINGS_SMS_SID: OPERATOR_SID, SETTINGS_SMS_TOKEN: OPERATOR_TOKEN, VONAGE_API_KEY: OPERATOR_VONAGE_KEY, VONAGE_API_SECRET: OPERATOR_VONAGE_SECRET };
const VONAGE_OK = { status: 200, json: { 'message-count': '1', messages: [{ to: '4915100000000', 'message-id': 'x', status: '0' }] } };
const OPEN = { cooldownSeconds: 0, hourlyCap: 100, perIp: { max: 10_000, windowSeconds: 60 } };

const redisDown = await redisProblem();

function capturedLogger() {
  let text = '';
  const stream = new Writable({ write(chunk, _enc, done) { text += chunk.toString(); done(); } });
  return { logger: pino({ level: 'trace' }, stream), text: () => text };
}

t.test('sms settings of one environment: its own provider, write-only secrets, every runtime within a second', async (t) => {
  const saved = Object.fromEntries(Object.keys(VARIABLES).map((k) => [k, process.env[k]]));
  Object.assign(process.env, VARIABLES);
  t.teardown(() => {
    for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k]; else process.env[k] = v;
  });
  await eachBackend(t, ['sms-a', 'sms-b'], async (t, site) => {
    if (site.backend === 'sqlite' && redisDown !== null) {
      if (process.env.CI === 'true') throw new Error(`Redis is required when CI=true (SQLite runtimes share events over it): ${redisDown}`);
      t.comment(`skipped: Redis unreachable (${redisDown})`);
      return;
    }
    const config = await startSmsSink();
    const own = await startSmsSink();
    own.answer = VONAGE_OK;
    t.teardown(async () => { await config.close(); await own.close(); });
    const [a, b] = site.ids as [string, string];
    const shared = site.backend === 'sqlite' ? { redis: { url: REDIS_URL } } : {};
    const sms = { provider: 'twilio' as const, from: '+15005550006', twilio: { baseUrl: config.url, accountSidEnv: 'SETTINGS_SMS_SID', authTokenEnv: 'SETTINGS_SMS_TOKEN' } };
    const boot = (logger: pino.Logger) => site.boot({ auth: { signUp: true, rateLimit: { enabled: false }, phoneNumber: OPEN }, config: { ...shared, sms, api: { requireAuth: true } }, logger });
    const logs = capturedLogger();
    const otherLogs = capturedLogger();
    const rt = await boot(logs.logger);
    const other = await boot(otherLogs.logger);

    const answers: string[] = [];
    const call = async (runtime: TestRuntime, env: string, method: 'GET' | 'PUT' | 'POST', path: string, token: string | null, payload?: unknown) => {
      const res = await runtime.inject({ method, url: `/api/v1/environments/${env}${path}`, headers: token ? bearer(token) : {}, ...(payload === undefined ? {} : { payload: payload as object }) });
      answers.push(res.body);
      return res;
    };
    let n = 0;
    /** Asks for a sign-in code in `env` through `runtime`; the number it went to. */
    const code = async (runtime: TestRuntime, env: string) => {
      const to = `+49151${String(1_000_000 + n++)}`;
      const res = await call(runtime, env, 'POST', '/auth/phone-number/send-otp', null, { phoneNumber: to });
      t.equal(res.statusCode, 200, `a code for ${to} in ${env}`);
      return to;
    };
    const reached = (sink: typeof config, to: string) => sink.requests.some((r) => (r.form.To ?? `+${r.form.to}`) === to);

    const admin = (await signIn(rt, undefined, undefined, {}, `/api/v1/environments/${a}/auth/sign-in`)).token;
    const adminB = (await signIn(rt, undefined, undefined, {}, `/api/v1/environments/${b}/auth/sign-in`)).token;
    const member = await addUser(rt, admin, 'Member'); // A is the default environment.

    // Before: both runtimes text A's codes through the config file's Twilio (the other one remembers A has no settings).
    for (const runtime of [rt, other]) t.ok(reached(config, await code(runtime, a)), "before: the config file's provider");
    t.equal(config.requests[0]!.headers.authorization, `Basic ${Buffer.from(`${OPERATOR_SID}:${OPERATOR_TOKEN}`).toString('base64')}`, "with the operator's credentials");

    for (const [what, res] of [['reads', await call(rt, a, 'GET', '/settings/sms', member.token)], ['writes', await call(rt, a, 'PUT', '/settings/sms', member.token, { provider: 'log' })]] as const) {
      t.equal(res.statusCode, 403, `a member ${what}: 403`);
      t.equal(res.json().error.code, 'PERMISSION_DENIED');
    }

    const refusals = [
      { body: { provider: 'vonage', vonage: { baseUrl: 'http://sms.evil.example', apiKey: TENANT_KEY, apiSecret: TENANT_SECRET } }, path: 'vonage.baseUrl', message: /must be https/ },
      { body: { provider: 'vonage', vonage: { apiKeyEnv: 'OS_AUTH_SECRET' } }, path: 'vonage.apiKeyEnv', message: /unknown key/ },
      // The operator's VONAGE_API_KEY and VONAGE_API_SECRET are set: a provider chosen in settings must not get them.
      { body: { provider: 'vonage', from: 'Tenant', vonage: { baseUrl: own.url } }, path: 'vonage.apiKey', message: /the Vonage API key \(vonage\.apiKey\) is not set/ },
      { body: { twilio: { baseUrl: own.url } }, path: 'twilio.accountSid', message: /the Twilio Account SID \(twilio\.accountSid\) is not set/ },
      { body: { provider: 'twilio', from: '+15005550006', twilio: { accountSid: 'AC1', authToken: 'x' } }, path: 'twilio.accountSid', message: /not an Account SID/ },
    ];
    for (const { body, path, message } of refusals) {
      const res = await call(rt, a, 'PUT', '/settings/sms', admin, body);
      t.equal(res.statusCode, 400, `${JSON.stringify(body)}: 400`);
      t.equal(res.json().error.code, 'VALIDATION_ERROR');
      t.equal(res.json().error.details.errors[0]?.path, path, `names ${path}`);
      t.match(res.json().error.details.errors[0]?.message, message);
    }
    t.same((await call(rt, a, 'GET', '/settings/sms', admin)).json().revision, 0, 'nothing was stored');
    t.equal(own.requests.length, 0, "nothing reached the tenant's server");

    const put = await call(rt, a, 'PUT', '/settings/sms', admin, { provider: 'vonage', from: 'Tenant', vonage: { baseUrl: own.url, apiKey: TENANT_KEY, apiSecret: TENANT_SECRET } });
    const putAt = Date.now();
    t.equal(put.statusCode, 200, put.body);
    t.same(put.json().values, { provider: 'vonage', from: 'Tenant', vonage: { baseUrl: own.url, apiKey: { set: true }, apiSecret: { set: true } } }, 'the answer shows only that the secrets are set');
    t.same(put.json().secrets, { 'vonage.apiKey': { set: true }, 'vonage.apiSecret': { set: true } });

    // The other runtime: within a second of the answer, A's codes go to A's provider.
    let firstOwn: number | null = null;
    for (let i = 0; firstOwn === null && Date.now() - putAt < 5000; i++) {
      const sentAt = Date.now();
      const to = await code(other, a);
      if (reached(own, to)) firstOwn = sentAt - putAt;
      else t.ok(reached(config, to), `probe ${i} went through the config file's provider`);
    }
    t.ok(firstOwn !== null && firstOwn <= 1000, `the other runtime used the new settings ${firstOwn} ms after the write (bound: 1000)`);

    const toA = await code(rt, a);
    const sent = own.requests.find((r) => `+${r.form.to}` === toA);
    t.match(sent, { path: '/sms/json', form: { api_key: TENANT_KEY, api_secret: TENANT_SECRET, from: 'Tenant' } }, "A's code through Vonage at A's server, with A's key and secret");
    t.notOk(own.requests.some((r) => r.raw.includes(OPERATOR_VONAGE_KEY) || r.raw.includes(OPERATOR_VONAGE_SECRET) || JSON.stringify(r.headers).includes(Buffer.from(`${OPERATOR_SID}:${OPERATOR_TOKEN}`).toString('base64'))), "no operator credential reached the tenant's server");
    // A user import of A invites by SMS through A's provider as well.
    const imported = await call(rt, a, 'POST', '/auth/admin/import-users', admin, { rows: [{ phone: '+4915177777777', name: 'Grace' }] });
    t.equal(imported.statusCode, 200, imported.body);
    t.same(imported.json().summary.delivery.invite_sms, 1);
    t.match(own.requests.find((r) => r.form.to === '4915177777777')?.form, { api_key: TENANT_KEY, text: /An account was created for this number/ }, "the invitation through A's provider");
    for (const runtime of [rt, other]) {
      const toB = await code(runtime, b);
      t.ok(reached(config, toB), "B's code through the config file's provider");
      t.notOk(reached(own, toB), "and not through A's");
    }
    t.equal((await call(rt, b, 'GET', '/settings/sms', adminB)).json().revision, 0, 'B has no settings');

    // Sent back as read, the secrets are kept.
    const read = await call(rt, a, 'GET', '/settings/sms', admin);
    const resent = await call(rt, a, 'PUT', '/settings/sms', admin, { ...read.json().values, from: 'TenantTwo' });
    t.equal(resent.statusCode, 200, resent.body);
    const toKept = await code(rt, a);
    t.match(own.requests.find((r) => `+${r.form.to}` === toKept)?.form, { api_secret: TENANT_SECRET, from: 'TenantTwo' }, 'the new sender, with the kept secret');

    for (const needle of [TENANT_SECRET, TENANT_KEY]) {
      t.notOk(answers.some((body) => body.includes(needle)), 'no answer holds a secret');
      t.notOk(logs.text().includes(needle), 'no log line of this runtime holds it');
      t.notOk(otherLogs.text().includes(needle), 'nor of the other');
      t.notOk((await site.dump(a)).includes(needle), 'no table of the environment holds it in plain');
    }
    t.ok(logs.text().includes('settings changed'), 'the change was logged');
    const rows = await site.query(a, "select * from osr_settings where namespace = 'sms'");
    t.match(String(rows[0]!.sealed_json), /"vonage\.apiSecret":"v1\./, 'sealed (AES-256-GCM, v1)');

    const cleared = await call(rt, a, 'PUT', '/settings/sms', admin, {});
    t.equal(cleared.statusCode, 200);
    t.ok(reached(config, await code(rt, a)), "cleared: A's codes go through the config file's provider again");
  });
});
