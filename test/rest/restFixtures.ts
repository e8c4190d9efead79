/** The CRM runtime booted on each driver, plus request and snapshot helpers for the REST data tests. */
import { createHash } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import pg from 'pg';
import type { Test } from 'tap';
import type { DataDatabase } from '../../capabilities/dataDatabase.ts';
import type { DataContext, DataEngine, DataRecord } from '../../capabilities/dataEngine.ts';
import type { RuntimeConfigInput } from '../../runtime/configSchema.ts';
import type { BuiltinPlugin } from '../../runtime/resolvePlugins.ts';
import { databaseCases, POSTGRES_URL } from '../harness/databases.ts';
import { startTestRuntime, type TestRuntime } from '../harness/startTestRuntime.ts';

export type DriverName = 'sqlite' | 'postgres';

export interface Driver {
  name: DriverName;
  /** Why this driver is skipped (PostgreSQL unreachable outside CI), or false. */
  skip: string | false;
}

export interface Reply {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  headers: Record<string, unknown>;
}

export interface Rest {
  rt: TestRuntime;
  driver: DriverName;
  /** Environment ids, in config order; the first is the default. */
  environments: string[];
  send(method: InjectOptions['method'], url: string, payload?: unknown, headers?: Record<string, string>): Promise<Reply>;
  /** POST a record; fails the test unless 201. */
  create(object: string, record: DataRecord, headers?: Record<string, string>): Promise<DataRecord>;
  /** Every row of a table as `id:version`, read by the engine (no hooks' business: system context). */
  snapshot(object: string, environmentId?: string): Promise<{ count: number; checksum: string }>;
  engine(): DataEngine;
  /** Raw SQL on the environment's database (`data.database`), below row security. */
  database(): DataDatabase;
}

export async function drivers(): Promise<Driver[]> {
  return (await databaseCases()).map((c) => ({ name: c.name, skip: c.skip }));
}

export interface BootOptions {
  /** Environment ids (default one, named after the file tag); on PostgreSQL each is a schema env_<id>. */
  environments?: string[];
  builtins?: readonly BuiltinPlugin[];
  apps?: string[];
  config?: RuntimeConfigInput;
}

const schemaOf = (id: string) => `env_${id.replace(/-/g, '_')}`;

async function dropSchemas(ids: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 3000 });
  await client.connect().catch((error: unknown) => {
    // The case was not skipped: PostgreSQL answered the probe, or CI=true demands it.
    throw new Error(`PostgreSQL is unreachable at ${POSTGRES_URL} (required when CI=true): ${(error as Error).message}`);
  });
  try {
    for (const id of ids) await client.query(`drop schema if exists "${schemaOf(id)}" cascade`);
  } finally {
    await client.end();
  }
}

/**
 * Boots the runtime with the CRM app on one driver. Environment ids carry the process id so two
 * runs of the same file never share a PostgreSQL schema; teardown stops the runtime and drops them.
 */
export async function bootRest(t: Test, driver: DriverName, tag: string, options: BootOptions = {}): Promise<Rest> {
  const environments = (options.environments ?? [tag]).map((id) => `${id}-${process.pid}`);
  if (driver === 'postgres') await dropSchemas(environments);
  const rt = await startTestRuntime({
    config: {
      apps: options.apps ?? ['metadata/apps/crm'],
      api: { requireAuth: false },
      plugins: { crm: { enabled: true } },
      environments: environments.map((id) => ({ id })),
      ...(driver === 'postgres' ? { database: { url: POSTGRES_URL } } : {}),
      ...options.config,
    },
    ...(options.builtins ? { builtins: options.builtins } : {}),
  });
  t.teardown(async () => {
    await rt.close();
    if (driver === 'postgres') await dropSchemas(environments);
  });
  const engine = () => rt.runtime.kernel.service<DataEngine>('data.engine')!;
  const rest: Rest = {
    rt,
    driver,
    environments,
    async send(method, url, payload, headers = {}) {
      const res = await rt.inject({ method, url, headers, ...(payload === undefined ? {} : typeof payload === 'string' ? { payload } : { payload: payload as object }) });
      return { status: res.statusCode, body: res.body === '' ? null : (res.json() as unknown), headers: res.headers };
    },
    async create(object, record, headers) {
      const res = await rest.send('POST', `/api/v1/data/${object}`, record, headers);
      if (res.status !== 201) t.fail(`POST ${object} answered ${res.status}: ${JSON.stringify(res.body)}`);
      return res.body as DataRecord;
    },
    async snapshot(object, environmentId = environments[0]!) {
      const ctx: DataContext = { environmentId, principal: null, system: true };
      const rows: string[] = [];
      let cursor: string | null | undefined = null;
      do {
        const page = await engine().query(object, { select: ['id', 'version'], orderBy: 'id', limit: 200, ...(cursor ? { cursor } : {}) }, ctx, { total: false });
        rows.push(...page.items.map((r) => `${String(r.id)}:${String(r.version)}`));
        cursor = page.nextCursor;
      } while (cursor);
      return { count: rows.length, checksum: createHash('sha256').update(rows.join('\n')).digest('hex') };
    },
    engine,
    database: () => rt.runtime.kernel.service<DataDatabase>('data.database')!,
  };
  return rest;
}

/** Runs `body` once per driver, each in its own subtest with its own runtime. */
export async function onEachDriver(t: Test, tag: string, body: (t: Test, rest: Rest) => Promise<void>, options: BootOptions = {}): Promise<void> {
  for (const driver of await drivers()) {
    await t.test(driver.name, { skip: driver.skip }, async (t) => {
      const rest = await bootRest(t, driver.name, tag, options);
      await body(t, rest);
    });
  }
}
