/** Runtimes with real identity databases (SQLite files or PostgreSQL schemas) for the auth tests. */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { postgresProblem } from '../harness/postgresProblem.ts';
import type { Test } from 'tap';
import type { AnyPlugin } from '../../kernel/index.ts';
import type { Logger } from '../../kernel/logger.ts';
import { BUILTIN_PLUGINS } from '../../plugins/builtin.ts';
import type { RuntimeConfigInput } from '../../runtime/configSchema.ts';
import { POSTGRES_URL } from '../harness/databases.ts';
import { startTestRuntime, type TestRuntime } from '../harness/startTestRuntime.ts';

export const ADMIN = { email: 'admin@example.com', password: 'admin-password-1' };
export const SECRET = 'auth-test-secret-0123456789-0123456789-abc';

type Row = Record<string, unknown>;

/** A set of environments on one backend, reusable across runtimes (restarts) of one test. */
export interface Site {
  backend: 'sqlite' | 'postgres';
  /** Environment ids, in the order asked (the first is the default). */
  ids: string[];
  dataDir: string;
  /** Run SQL (`?` placeholders) in an environment's identity database. */
  query(environmentId: string, sql: string, params?: unknown[]): Promise<Row[]>;
  /** Every value of every row of every table of the environment, for "is it stored?" checks. */
  dump(environmentId: string): Promise<string>;
  boot(options?: BootOptions): Promise<TestRuntime>;
}

export interface BootOptions {
  secret?: string;
  /** Options of the auth plugin (plugins.auth). */
  auth?: Record<string, unknown>;
  /** Options of the built-in email plugin (plugins.email); absent: the plugin is off (no `email.send`). */
  email?: Record<string, unknown>;
  config?: RuntimeConfigInput;
  env?: NodeJS.ProcessEnv;
  plugins?: AnyPlugin[];
  logger?: Logger;
}


const schemaOf = (id: string) => `env_${id.replace(/-/g, '_')}`;

/**
 * Run `body` once per backend. PostgreSQL unreachable fails the test when CI=true and skips
 * it (with the reason) otherwise.
 */
export async function eachBackend(t: Test, ids: string[], body: (t: Test, site: Site) => Promise<void>): Promise<void> {
  const problem = await postgresProblem(POSTGRES_URL);
  const ci = process.env.CI === 'true';
  await t.test('sqlite', async (t) => body(t, sqliteSite(t, ids)));
  await t.test('postgres', { skip: problem !== null && !ci ? `PostgreSQL unreachable at ${POSTGRES_URL} (${problem}); set CI=true to make this a failure` : false }, async (t) => {
    if (problem !== null) throw new Error(`PostgreSQL is required when CI=true but is unreachable at ${POSTGRES_URL}: ${problem}`);
    await body(t, postgresSite(t, ids));
  });
}

function baseSite(t: Test, backend: Site['backend'], ids: string[], extra: RuntimeConfigInput, query: Site['query'], tables: (id: string) => Promise<string[]>): Site {
  const dataDir = mkdtempSync(join(tmpdir(), 'osr-auth-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const site: Site = {
    backend, ids, dataDir, query,
    async dump(id) {
      const out: string[] = [];
      for (const table of await tables(id)) out.push(JSON.stringify(await query(id, `select * from "${table}"`)));
      return out.join('\n');
    },
    async boot(options = {}) {
      const rt = await startTestRuntime({
        config: {
          ...extra,
          dataDir,
          environments: ids.map((id) => ({ id })),
          auth: { secret: options.secret ?? SECRET, admin: ADMIN },
          plugins: { ...(options.auth ? { auth: options.auth } : {}), email: options.email ?? { enabled: false } },
          ...options.config,
        },
        env: options.env ?? {},
        ...(options.logger ? { logger: options.logger } : {}),
        ...(options.plugins ? { builtins: [...BUILTIN_PLUGINS, ...options.plugins.map((manifest) => ({ manifest, enabledByDefault: true }))] } : {}),
      });
      t.teardown(() => rt.close());
      return rt;
    },
  };
  return site;
}

export function sqliteSite(t: Test, ids: string[]): Site {
  let dir = '';
  const open = (id: string) => new Database(join(dir, `${id}.db`));
  const site = baseSite(t, 'sqlite', ids, {}, async (id, sql, params = []) => {
    const db = open(id);
    try {
      const statement = db.prepare(sql);
      return statement.reader ? (statement.all(...params) as Row[]) : (statement.run(...params), []);
    } finally {
      db.close();
    }
  }, async (id) => (await site.query(id, "select name from sqlite_master where type = 'table'")).map((r) => String(r.name)));
  dir = site.dataDir;
  return site;
}

/** A site on PostgreSQL alone (several processes sharing one database). */
export function postgresSite(t: Test, base: string[]): Site {
  const suffix = randomBytes(3).toString('hex');
  const ids = base.map((id) => `${id}-${suffix}`);
  const run = async (id: string, sql: string, params: unknown[] = []) => {
    const client = new pg.Client({ connectionString: POSTGRES_URL, options: `-c search_path=${schemaOf(id)}` });
    await client.connect();
    try {
      let n = 0;
      return (await client.query(sql.replace(/\?/g, () => `$${++n}`), params)).rows as Row[];
    } finally {
      await client.end();
    }
  };
  t.teardown(async () => {
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    for (const id of ids) await client.query(`drop schema if exists "${schemaOf(id)}" cascade`);
    await client.end();
  });
  return baseSite(t, 'postgres', ids, { database: { url: POSTGRES_URL } }, run, async (id) =>
    (await run(id, 'select table_name from information_schema.tables where table_schema = ?', [schemaOf(id)])).map((r) => String(r.table_name)));
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** The session cookie (name=value) of a sign-in answer. */
export function sessionCookie(res: LightMyRequestResponse): string {
  const cookies = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
  const session = cookies.find((c) => c.includes('.session_token=') && !c.includes('Max-Age=0'));
  if (!session) throw new Error(`no session cookie in ${JSON.stringify(cookies)}`);
  return session.split(';')[0]!;
}

export async function signIn(rt: TestRuntime, email = ADMIN.email, password = ADMIN.password, headers: Record<string, string> = {}, url = '/api/v1/auth/sign-in') {
  const res = await rt.inject({ method: 'POST', url, headers, payload: { email, password } });
  if (res.statusCode !== 200) throw new Error(`sign-in of ${email} answered ${res.statusCode}: ${res.body}`);
  return { token: res.json().token as string, cookie: sessionCookie(res), user: res.json().user as Record<string, unknown>, res };
}

export function call(rt: TestRuntime, options: InjectOptions): Promise<LightMyRequestResponse> {
  return rt.inject(options);
}
