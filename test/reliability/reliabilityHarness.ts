/** Drivers, a CRM runtime per driver, and the response checks shared by the reliability tests. */
import { randomBytes } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import pg from 'pg';
import type { Test } from 'tap';
import { ERRORS } from '../../kernel/errors.ts';
import type { RuntimeConfigInput } from '../../runtime/configSchema.ts';
import { databaseCases, POSTGRES_URL } from '../harness/databases.ts';
import { startTestRuntime, type TestRuntime } from '../harness/startTestRuntime.ts';

export type DriverName = 'sqlite' | 'postgres';
export { POSTGRES_URL };

export interface Reply {
  status: number;
  text: string;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  headers: Record<string, unknown>;
}

/**
 * Every driver, each in its own subtest. PostgreSQL unreachable: skipped with the reason, or a
 * failure when CI=true (the harness fails the test when it opens the database).
 */
export async function forEachDriver(t: Test, body: (t: Test, driver: DriverName) => Promise<void>): Promise<void> {
  for (const c of await databaseCases()) {
    await t.test(c.name, { skip: c.skip }, async (t) => {
      if (c.name === 'postgres') await requirePostgres(t);
      await body(t, c.name);
    });
  }
}

/** Fails the test (and throws) when PostgreSQL does not answer. */
export async function requirePostgres(t: Test): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
  } catch (error) {
    t.fail(`PostgreSQL is required (CI=true) but unreachable at ${POSTGRES_URL}: ${(error as Error).message}`);
    throw error;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Runs SQL as the test's own PostgreSQL client (not one of the runtime's connections). */
export async function withPostgres<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A unique environment id, and the PostgreSQL schema the runtime gives it. */
export function environmentFor(tag: string): { id: string; schema: string } {
  const id = `rel-${tag}-${process.pid}-${randomBytes(3).toString('hex')}`;
  return { id, schema: `env_${id.replace(/-/g, '_')}` };
}

export async function dropSchema(schema: string): Promise<void> {
  await withPostgres((client) => client.query(`drop schema if exists "${schema}" cascade`));
}

export interface CrmRuntime {
  rt: TestRuntime;
  environmentId: string;
  send(method: InjectOptions['method'], url: string, payload?: unknown, headers?: Record<string, string>): Promise<Reply>;
}

/** The CRM app with lead conversion on one driver, requests in-process; removed at teardown. */
export async function bootCrm(t: Test, driver: DriverName, tag: string, config: RuntimeConfigInput = {}): Promise<CrmRuntime> {
  const env = environmentFor(tag);
  const rt = await startTestRuntime({
    config: {
      apps: ['metadata/apps/crm'],
      api: { requireAuth: false },
      environments: [{ id: env.id }],
      ...(driver === 'postgres' ? { database: { url: POSTGRES_URL } } : {}),
      ...config,
      plugins: { crm: { enabled: true }, ...config.plugins },
    },
  });
  t.teardown(async () => {
    await rt.close();
    if (driver === 'postgres') await dropSchema(env.schema);
  });
  return {
    rt,
    environmentId: env.id,
    async send(method, url, payload, headers = {}) {
      const res = await rt.inject({
        method, url, headers,
        ...(payload === undefined ? {} : typeof payload === 'string' ? { payload } : { payload: payload as object }),
      });
      return toReply(res.statusCode, res.body, res.headers);
    },
  };
}

export function toReply(status: number, text: string, headers: Record<string, unknown>): Reply {
  let body: unknown = null;
  try {
    body = text === '' ? null : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status, text, body, headers };
}

// What only a server-side failure would put in a response: stack frames, source paths, driver
// and SQL error texts.
const LEAKS: Array<[RegExp, string]> = [
  [/\n\s+at .+\(?.+:\d+:\d+\)?/, 'a stack trace'],
  [/node_modules|\/work\/|file:\/\//, 'a source path'],
  [/\.(ts|js|mjs):\d+/, 'a source location'],
  [/SQLITE_[A-Z]/, 'a SQLite error code'],
  [/syntax error at or near|relation "[^"]*" does not exist|column "[^"]*" does not exist|invalid input syntax for/i, 'a PostgreSQL error'],
  [/\bselect\b[^"]{0,200}\bfrom\s+[`"]/i, 'SQL text'],
  [/\binsert into [`"]|\bupdate [`"][a-z_]+[`"] set\b/i, 'SQL text'],
  [/knex|better-sqlite3|pg-protocol/i, 'a driver name'],
];

/** Why a response must not be sent as is (empty when it is fine). */
export function responseProblems(reply: Reply): string[] {
  const problems: string[] = [];
  if (reply.status >= 500) problems.push(`status ${reply.status}`);
  for (const [pattern, what] of LEAKS) if (pattern.test(reply.text)) problems.push(`the body holds ${what}`);
  if (reply.status >= 300) problems.push(...envelopeProblems(reply));
  return problems;
}

/** A non-2xx body must be exactly `{ error: { code, message, details } }` with a known code. */
export function envelopeProblems(reply: Reply): string[] {
  const body = reply.body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | null | undefined;
  if (typeof body !== 'object' || body === null || typeof body.error !== 'object' || body.error === null) return ['no error envelope'];
  const problems: string[] = [];
  if (Object.keys(body).length !== 1) problems.push('keys beside error in the envelope');
  const { code, message, details } = body.error;
  if (typeof code !== 'string' || !Object.hasOwn(ERRORS, code)) problems.push(`unknown error code ${JSON.stringify(code)}`);
  else if (ERRORS[code as keyof typeof ERRORS].status !== reply.status) problems.push(`code ${code} sent with status ${reply.status}`);
  if (typeof message !== 'string' || message === '') problems.push('no message');
  if (typeof details !== 'object' || details === null || Array.isArray(details)) problems.push('details is not an object');
  return problems;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
