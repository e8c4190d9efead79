/** A runtime with the notify-probe plugin, an SMTP sink, an admin and two users, on one driver. */
import { Writable } from 'node:stream';
import pg from 'pg';
import pino from 'pino';
import type { Test } from 'tap';
import type { RuntimeConfigInput } from '../../runtime/configSchema.ts';
import { POSTGRES_URL } from '../harness/databases.ts';
import { startTestRuntime, type TestRuntime } from '../harness/startTestRuntime.ts';
import { startSmtpSink, type SmtpSink } from '../email/smtpSink.ts';

export const ADMIN = { email: 'admin@example.com', password: 'admin-password-1' };
const FROM = 'OSR <no-reply@example.com>';

export interface Reply {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface Person { id: string; email: string; token: string }

export interface NotifyRuntime {
  rt: TestRuntime;
  sink: SmtpSink;
  environmentId: string;
  logs: string[];
  admin: Person;
  ada: Person;
  bob: Person;
  send(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, who: Person | null, payload?: unknown): Promise<Reply>;
  notify(payload: object): Promise<Reply>;
}

const schemaOf = (id: string) => `env_${id.replace(/-/g, '_')}`;

async function dropSchema(environment: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(`drop schema if exists "${schemaOf(environment)}" cascade`);
  } finally {
    await client.end();
  }
}

export async function bootNotify(t: Test, driver: 'sqlite' | 'postgres', extra: RuntimeConfigInput = {}): Promise<NotifyRuntime> {
  const sink = await startSmtpSink();
  t.teardown(() => sink.close());
  const environmentId = `notify-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const logs: string[] = [];
  const logger = pino({ level: 'debug' }, new Writable({ write(chunk, _enc, done) { logs.push(String(chunk)); done(); } }));
  const rt = await startTestRuntime({
    config: {
      environments: [{ id: environmentId }],
      ...(driver === 'postgres' ? { database: { url: POSTGRES_URL } } : {}),
      auth: { admin: ADMIN },
      ...extra,
      plugins: {
        email: { provider: 'smtp', from: FROM, smtp: { host: '127.0.0.1', port: sink.port } },
        'notify-probe': { path: 'test/notifications/fixtures/notify-probe', grants: ['notifications.send', 'http.routes'] },
        ...extra.plugins,
      },
    },
    logger,
  });
  t.teardown(async () => {
    await rt.close();
    if (driver === 'postgres') await dropSchema(environmentId);
  });
  const send: NotifyRuntime['send'] = async (method, url, who, payload) => {
    const res = await rt.inject({ method, url, headers: who ? { authorization: `Bearer ${who.token}` } : {}, ...(payload === undefined ? {} : { payload: payload as object }) });
    return { status: res.statusCode, body: res.body === '' ? null : (res.json() as unknown) };
  };
  const signIn = async (email: string, password: string) => {
    const res = await rt.inject({ method: 'POST', url: '/api/v1/auth/sign-in', payload: { email, password } });
    if (res.statusCode !== 200) throw new Error(`sign-in of ${email}: ${res.body}`);
    const body = res.json();
    return { id: body.user.id as string, email, token: body.token as string };
  };
  const admin = await signIn(ADMIN.email, ADMIN.password);
  const person = async (email: string) => {
    const res = await send('POST', '/api/v1/auth/admin/create-user', admin, { email, password: 'person-password-1' });
    if (res.status !== 201) throw new Error(`create-user ${email}: ${JSON.stringify(res.body)}`);
    return signIn(email, 'person-password-1');
  };
  const ada = await person('ada@example.com');
  const bob = await person('bob@example.com');
  return {
    rt, sink, environmentId, logs, admin, ada, bob, send,
    notify: (payload) => send('POST', '/api/v1/probe/notify', admin, payload),
  };
}
