/** The search runtime booted on one driver: the library test app, requests, and raw access to the index. */
import { Writable } from 'node:stream';
import pino from 'pino';
import type { Test } from 'tap';
import type { DataContext, DataEngine, DataRecord } from '../../capabilities/dataEngine.ts';
import type { DataDatabase } from '../../capabilities/dataDatabase.ts';
import type { RuntimeConfigInput } from '../../runtime/configSchema.ts';
import type { BuiltinPlugin } from '../../runtime/resolvePlugins.ts';
import { storeFor } from '../../plugins/search/storeFor.ts';
import { databaseCases, POSTGRES_URL, dropEnvironmentSchemas, environmentSchema } from '../harness/databases.ts';
import { startTestRuntime, type TestRuntime } from '../harness/startTestRuntime.ts';

export const LIBRARY = 'test/search/fixtures/library';

export type DriverName = 'sqlite' | 'postgres';

export interface Reply {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface SearchRuntime {
  rt: TestRuntime;
  environmentId: string;
  /** The other environments, if any. */
  others: string[];
  /** Log lines (parsed JSON) written while the runtime ran. */
  logs: Array<{ msg: string; [key: string]: unknown }>;
  send(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, headers?: Record<string, string>): Promise<Reply>;
  create(object: string, record: DataRecord): Promise<DataRecord>;
  /** GET /api/v1/search with these parameters. */
  search(params: Record<string, string | number>, headers?: Record<string, string>): Promise<Reply>;
  engine(): DataEngine;
  /** Raw SQL on the environment's database (`data.database`), for rows written around the engine. */
  database(): DataDatabase;
  system: DataContext;
  /** Documents the index holds for an object, read outside any request. */
  indexed(object: string): Promise<number>;
}

export interface BootOptions {
  /** Environment id; a PostgreSQL schema env_<id>. Its schema is dropped at teardown unless keep is set. */
  environment: string;
  /** More environments, after the default one. */
  others?: string[];
  dataDir?: string;
  builtins?: readonly BuiltinPlugin[];
  apps?: string[];
  config?: RuntimeConfigInput;
  /** Leave the PostgreSQL schema for a later boot (the caller drops it). */
  keep?: boolean;
}

export async function drivers(): Promise<Array<{ name: DriverName; skip: string | false }>> {
  return (await databaseCases()).map((c) => ({ name: c.name, skip: c.skip }));
}

export const schemaOf = environmentSchema;

export const dropSchema = (id: string): Promise<void> => dropEnvironmentSchemas(id);

function captureLogger(logs: SearchRuntime['logs']) {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line.trim()) logs.push(JSON.parse(line));
      done();
    },
  });
  return pino({ level: 'info' }, sink);
}

export async function bootSearch(t: Test, driver: DriverName, options: BootOptions): Promise<SearchRuntime> {
  const environmentId = options.environment;
  const logs: SearchRuntime['logs'] = [];
  const rt = await startTestRuntime({
    config: {
      apps: options.apps ?? [LIBRARY],
      api: { requireAuth: false },
      environments: [environmentId, ...(options.others ?? [])].map((id) => ({ id })),
      ...(options.dataDir ? { dataDir: options.dataDir } : {}),
      ...(driver === 'postgres' ? { database: { url: POSTGRES_URL } } : {}),
      ...options.config,
    },
    logger: captureLogger(logs),
    ...(options.builtins ? { builtins: options.builtins } : {}),
  });
  let closed = false;
  t.teardown(async () => {
    if (!closed) await rt.close();
    if (driver === 'postgres' && !options.keep) for (const id of [environmentId, ...(options.others ?? [])]) await dropSchema(id);
  });
  const engine = () => rt.runtime.kernel.service<DataEngine>('data.engine')!;
  const database = () => rt.runtime.kernel.service<DataDatabase>('data.database')!;
  const system: DataContext = { environmentId, principal: null, system: true };
  const runtime: SearchRuntime = {
    rt: { ...rt, close: async () => { closed = true; await rt.close(); } },
    environmentId,
    others: options.others ?? [],
    logs,
    async send(method, url, payload, headers = {}) {
      const res = await rt.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
      return { status: res.statusCode, body: res.body === '' ? null : (res.json() as unknown) };
    },
    async create(object, record) {
      const res = await runtime.send('POST', `/api/v1/data/${object}`, record);
      if (res.status !== 201) t.fail(`POST ${object} answered ${res.status}: ${JSON.stringify(res.body)}`);
      return res.body as DataRecord;
    },
    search(params, headers) {
      const query = new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]));
      return runtime.send('GET', `/api/v1/search?${query.toString()}`, undefined, headers);
    },
    engine,
    database,
    system,
    indexed: (object) => database().withDatabase(environmentId, (db) => storeFor(db).count(db.knex, object)),
  };
  return runtime;
}

/** Ids of the hits, in order. */
export const idsOf = (reply: Reply): string[] => (reply.body?.items ?? []).map((hit: { id: string }) => hit.id);
