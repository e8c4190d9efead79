/**
 * The `ai` settings of one environment (docs/settings.md): an admin points environment A's
 * providers at its own OpenAI-compatible server (a local one speaking the real wire format) with
 * its own key; chats and agent conversations of A go there while environment B keeps the config
 * file's; the key is in no answer, log line or plain column; a member is refused; a bad value is
 * 400 naming the path; a server chosen in settings never gets the operator's keys; a second
 * runtime on the same database uses the new providers within a second.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import t from 'tap';
import { addUser } from '../access/accessWorld.ts';
import { startFakeProvider, type FakeProvider } from '../ai/fakeProvider.ts';
import { bearer, eachBackend, signIn } from '../auth/authHarness.ts';
import type { TestRuntime } from '../harness/startTestRuntime.ts';
import { redisProblem, REDIS_URL } from '../jobs/jobsHarness.ts';

const OPERATOR_KEY = 'sk-operator-config-key-2c9e';
const OPERATOR_OPENAI_KEY = 'sk-operator-openai-env-key-8b41';
const TENANT_KEY = 'sk-tenant-SECRET-never-shown-5f17';
const TENANT_KEY_TWO = 'sk-tenant-second-key-0d3a';
const VARIABLES = { AI_SETTINGS_OPERATOR_KEY: OPERATOR_KEY, OPENAI_API_KEY: OPERATOR_OPENAI_KEY };

const redisDown = await redisProblem();

function capturedLogger() {
  let text = '';
  const stream = new Writable({ write(chunk, _enc, done) { text += chunk.toString(); done(); } });
  return { logger: pino({ level: 'trace' }, stream), text: () => text };
}

const authOf = (fake: FakeProvider, marker: string) => fake.requests.find((r) => JSON.stringify(r.body ?? '').includes(marker))?.headers.authorization;

t.test('ai settings of one environment: its own providers, write-only keys, every runtime within a second', async (t) => {
  const saved = Object.fromEntries(Object.keys(VARIABLES).map((k) => [k, process.env[k]]));
  Object.assign(process.env, VARIABLES);
  t.teardown(() => {
    for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k]; else process.env[k] = v;
  });
  await eachBackend(t, ['ai-a', 'ai-b'], async (t, site) => {
    if (site.backend === 'sqlite' && redisDown !== null) {
      if (process.env.CI === 'true') throw new Error(`Redis is required when CI=true (SQLite runtimes share events over it): ${redisDown}`);
      t.comment(`skipped: Redis unreachable (${redisDown})`);
      return;
    }
    const config = await startFakeProvider();
    const own = await startFakeProvider();
    own.models = ['m1', 'm2', 'tenant-model'];
    t.teardown(async () => { await config.close(); await own.close(); });
    const [a, b] = site.ids as [string, string];
    const shared = site.backend === 'sqlite' ? { redis: { url: REDIS_URL } } : {};
    const ai = { providers: [{ id: 'fake', baseURL: config.baseURL, apiKeyEnv: 'AI_SETTINGS_OPERATOR_KEY' }], defaultModel: 'fake/m1' };
    const boot = (logger: pino.Logger) => site.boot({ config: { ...shared, apps: [], api: { requireAuth: true }, plugins: { email: { enabled: false }, ai } }, logger });
    const logs = capturedLogger();
    const otherLogs = capturedLogger();
    const rt = await boot(logs.logger);
    const other = await boot(otherLogs.logger);

    const answers: string[] = [];
    const call = async (runtime: TestRuntime, env: string, method: 'GET' | 'PUT' | 'POST', path: string, token: string, payload?: unknown) => {
      const res = await runtime.inject({ method, url: `/api/v1/environments/${env}${path}`, headers: bearer(token), ...(payload === undefined ? {} : { payload: payload as object }) });
      answers.push(res.body);
      return res;
    };
    const admin = (await signIn(rt, undefined, undefined, {}, `/api/v1/environments/${a}/auth/sign-in`)).token;
    const adminB = (await signIn(rt, undefined, undefined, {}, `/api/v1/environments/${b}/auth/sign-in`)).token;
    const member = await addUser(rt, admin, 'Member'); // A is the default environment.
    let n = 0;
    /** A chat in `env` through `runtime`; the marker its message carries. */
    const chat = async (runtime: TestRuntime, env: string, model?: string) => {
      const marker = `marker-${n++}`;
      const res = await call(runtime, env, 'POST', '/ai/chat', env === a ? admin : adminB, { ...(model ? { model } : {}), messages: [{ role: 'user', content: marker }] });
      t.equal(res.statusCode, 200, `a chat in ${env}: ${res.body.slice(0, 200)}`);
      return marker;
    };
    const reached = (fake: FakeProvider, marker: string) => authOf(fake, marker) !== undefined;

    // Before: both runtimes send A's chats to the config file's provider (the other one remembers A has no settings).
    for (const runtime of [rt, other]) {
      const marker = await chat(runtime, a);
      t.equal(authOf(config, marker), `Bearer ${OPERATOR_KEY}`, "before: the config file's provider, with its key");
    }

    for (const [what, res] of [['reads', await call(rt, a, 'GET', '/settings/ai', member.token)], ['writes', await call(rt, a, 'PUT', '/settings/ai', member.token, { defaultModel: 'fake/m2' })]] as const) {
      t.equal(res.statusCode, 403, `a member ${what}: 403`);
      t.equal(res.json().error.code, 'PERMISSION_DENIED');
    }

    const refusals = [
      { body: { providers: [{ id: 'own', baseURL: 'ftp://ai.example' }] }, path: 'providers.0.baseURL', message: /http/ },
      { body: { providers: [{ id: 'own', baseURL: own.baseURL, apiKeyEnv: 'OS_AUTH_SECRET' }] }, path: 'providers.0.apiKeyEnv', message: /unknown key/ },
      { body: { providers: [{ id: 'nobase', apiKey: TENANT_KEY }] }, path: 'providers.nobase.baseURL', message: /has no baseURL/ },
      { body: { defaultModel: 'ghost/m1' }, path: 'defaultModel', message: /provider 'ghost'/ },
    ];
    for (const { body, path, message } of refusals) {
      const res = await call(rt, a, 'PUT', '/settings/ai', admin, body);
      t.equal(res.statusCode, 400, `${JSON.stringify(body)}: 400`);
      t.equal(res.json().error.code, 'VALIDATION_ERROR');
      t.equal(res.json().error.details.errors[0]?.path, path, `names ${path}`);
      t.match(res.json().error.details.errors[0]?.message, message);
    }
    t.equal((await call(rt, a, 'GET', '/settings/ai', admin)).json().revision, 0, 'nothing was stored');

    // A's own server for `fake` (with its key), and `openai` there too: the operator's OPENAI_API_KEY must not follow.
    const put = await call(rt, a, 'PUT', '/settings/ai', admin, { providers: [{ id: 'fake', baseURL: own.baseURL, apiKey: TENANT_KEY }, { id: 'openai', baseURL: own.baseURL }], defaultModel: 'fake/m2' });
    const putAt = Date.now();
    t.equal(put.statusCode, 200, put.body);
    t.same(put.json().values, { providers: [{ id: 'fake', baseURL: own.baseURL, apiKey: { set: true } }, { id: 'openai', baseURL: own.baseURL }], defaultModel: 'fake/m2' }, 'the answer shows only that the key is set');
    t.same(put.json().secrets, { 'providers.fake.apiKey': { set: true }, 'providers.openai.apiKey': { set: false } });

    // The other runtime: within a second of the answer, A's chats go to A's server.
    let firstOwn: number | null = null;
    for (let i = 0; firstOwn === null && Date.now() - putAt < 5000; i++) {
      const sentAt = Date.now();
      const marker = await chat(other, a);
      if (reached(own, marker)) firstOwn = sentAt - putAt;
      else t.ok(reached(config, marker), `probe ${i} went to the config file's provider`);
    }
    t.ok(firstOwn !== null && firstOwn <= 1000, `the other runtime used the new settings ${firstOwn} ms after the write (bound: 1000)`);

    const here = await chat(rt, a);
    t.equal(authOf(own, here), `Bearer ${TENANT_KEY}`, "A's chat at A's server, with A's key");
    t.equal(own.requests.find((r) => JSON.stringify(r.body ?? '').includes(here))?.body.model, 'm2', "A's default model");
    const viaOpenai = await chat(rt, a, 'openai/tenant-model');
    t.equal(authOf(own, viaOpenai), 'Bearer no-key', 'a provider whose baseURL settings chose gets no operator key (OPENAI_API_KEY is set)');

    // An agent conversation of A too.
    const conversation = await call(rt, a, 'POST', '/ai/conversations', admin, { title: 'Settings' });
    t.equal(conversation.statusCode, 201, conversation.body);
    const turn = await call(rt, a, 'POST', `/ai/conversations/${conversation.json().id}/messages`, admin, { content: 'conversation-marker' });
    t.equal(turn.statusCode, 200, turn.body.slice(0, 200));
    t.equal(authOf(own, 'conversation-marker'), `Bearer ${TENANT_KEY}`, "A's conversation at A's server");

    for (const runtime of [rt, other]) {
      const marker = await chat(runtime, b);
      t.equal(authOf(config, marker), `Bearer ${OPERATOR_KEY}`, "B's chat at the config file's provider");
      t.notOk(reached(own, marker), "and not at A's");
    }
    t.equal((await call(rt, b, 'GET', '/settings/ai', adminB)).json().revision, 0, 'B has no settings');
    t.notOk(own.requests.some((r) => [OPERATOR_KEY, OPERATOR_OPENAI_KEY].some((key) => JSON.stringify(r.headers).includes(key))), "no operator key reached A's server");

    // A provider that keeps the config file's baseURL, with another key: merged by id.
    const keyOnly = await call(rt, a, 'PUT', '/settings/ai', admin, { providers: [{ id: 'fake', apiKey: TENANT_KEY_TWO }] });
    t.equal(keyOnly.statusCode, 200, keyOnly.body);
    const merged = await chat(rt, a);
    t.equal(authOf(config, merged), `Bearer ${TENANT_KEY_TWO}`, "the config file's server, with the key of the settings");
    t.equal(config.requests.find((r) => JSON.stringify(r.body ?? '').includes(merged))?.body.model, 'm1', "and the config file's default model");

    for (const needle of [TENANT_KEY, TENANT_KEY_TWO]) {
      t.notOk(answers.some((body) => body.includes(needle)), 'no answer holds a key');
      t.notOk(logs.text().includes(needle), 'no log line of this runtime holds it');
      t.notOk(otherLogs.text().includes(needle), 'nor of the other');
      t.notOk((await site.dump(a)).includes(needle), 'no table of the environment holds it in plain');
    }
    t.ok(logs.text().includes('settings changed'), 'the change was logged');
    const rows = await site.query(a, "select * from osr_settings where namespace = 'ai'");
    t.match(String(rows[0]!.sealed_json), /"providers\.fake\.apiKey":"v1\./, 'sealed (AES-256-GCM, v1)');
  });
});
