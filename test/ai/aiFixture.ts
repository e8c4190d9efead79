/** A runtime with the ai plugin against a fake OpenAI-compatible server, an admin and members with AI keys, on one driver. */
import { Writable } from 'node:stream';
import pino from 'pino';
import type { Test } from 'tap';
import type { RuntimeConfigInput } from '../../runtime/configSchema.ts';
import { POSTGRES_URL, dropEnvironmentSchemas } from '../harness/databases.ts';
import { startTestRuntime, type TestRuntime } from '../harness/startTestRuntime.ts';
import { startFakeProvider, type FakeProvider } from './fakeProvider.ts';

export const ADMIN = { email: 'admin@example.com', password: 'admin-password-1' };
/** The provider key: it must appear in no response and no log line. */
export const KEY_ENV = 'AI_TEST_PROVIDER_KEY';
export const PROVIDER_KEY = 'sk-test-provider-key-SECRET-4711';

export interface Reply {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  text: string;
}

export interface Person { id: string; email: string; token: string }

export interface AiRuntime {
  rt: TestRuntime;
  fake: FakeProvider;
  environmentId: string;
  logs: string[];
  admin: Person;
  /** ai:chat */
  ada: Person;
  /** ai:chat */
  bob: Person;
  /** ai:chat and ai:read */
  reader: Person;
  /** ai:chat, ai:read and ai:approve */
  approver: Person;
  /** No AI key. */
  plain: Person;
  send(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, who: Person | null, payload?: unknown): Promise<Reply>;
}

export interface AiBootOptions {
  /** plugins.ai options over the defaults (one provider `fake` at the fake server). */
  ai?: Record<string, unknown> | ((fake: FakeProvider) => Record<string, unknown>);
  config?: RuntimeConfigInput;
}

export async function bootAi(t: Test, driver: 'sqlite' | 'postgres', options: AiBootOptions = {}): Promise<AiRuntime> {
  process.env[KEY_ENV] = PROVIDER_KEY;
  const fake = await startFakeProvider();
  t.teardown(() => fake.close());
  const environmentId = `ai-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const logs: string[] = [];
  const logger = pino({ level: 'trace' }, new Writable({ write(chunk, _enc, done) { logs.push(String(chunk)); done(); } }));
  const rt = await startTestRuntime({
    config: {
      environments: [{ id: environmentId }],
      ...(driver === 'postgres' ? { database: { url: POSTGRES_URL } } : {}),
      auth: { admin: ADMIN },
      apps: ['test/ai/fixtures/app'],
      ...options.config,
      plugins: {
        ai: { providers: [{ id: 'fake', baseURL: fake.baseURL, apiKeyEnv: KEY_ENV }], defaultModel: 'fake/m1', ...(typeof options.ai === 'function' ? options.ai(fake) : options.ai) },
        ...options.config?.plugins,
      },
    },
    logger,
  });
  t.teardown(async () => {
    await rt.close();
    if (driver === 'postgres') await dropEnvironmentSchemas(environmentId);
  });
  const send: AiRuntime['send'] = async (method, url, who, payload) => {
    const res = await rt.inject({ method, url, headers: who ? { authorization: `Bearer ${who.token}` } : {}, ...(payload === undefined ? {} : { payload: payload as object }) });
    let body: unknown = null;
    try { body = res.body === '' ? null : res.json(); } catch { body = null; }
    return { status: res.statusCode, body, text: res.body };
  };
  const signIn = async (email: string, password: string): Promise<Person> => {
    const res = await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-in', payload: { email, password } });
    if (res.statusCode !== 200) throw new Error(`sign-in of ${email}: ${res.body}`);
    const body = res.json();
    return { id: body.user.id as string, email, token: body.token as string };
  };
  const admin = await signIn(ADMIN.email, ADMIN.password);
  const must = async (url: string, payload: object) => {
    const res = await send('POST', url, admin, payload);
    if (res.status !== 201) throw new Error(`POST ${url}: ${res.status} ${res.text}`);
    return res.body as { id: string };
  };
  const person = async (email: string, keys: string[]) => {
    const res = await send('POST', '/api/v1/auth/admin/create-user', admin, { email, password: 'person-password-1' });
    if (res.status !== 201) throw new Error(`create-user ${email}: ${res.text}`);
    const p = await signIn(email, 'person-password-1');
    if (keys.length > 0) {
      const set = await must('/api/v1/data/sys_permission_set', { name: `ai_${email.split('@')[0]}`, permissions: keys });
      await must('/api/v1/data/sys_user_permission_set', { user_id: p.id, permission_set: set.id });
    }
    return p;
  };
  // Naming note.secret in a permission set makes it field-controlled: members without the grant never read it.
  await must('/api/v1/data/sys_permission_set', { name: 'secret_readers', fields: { 'note.secret': { read: true, edit: true } } });
  const ada = await person('ada@example.com', ['ai:chat']);
  const bob = await person('bob@example.com', ['ai:chat']);
  const reader = await person('reader@example.com', ['ai:chat', 'ai:read']);
  const approver = await person('approver@example.com', ['ai:chat', 'ai:read', 'ai:approve']);
  const plain = await person('plain@example.com', []);
  return { rt, fake, environmentId, logs, admin, ada, bob, reader, approver, plain, send };
}
