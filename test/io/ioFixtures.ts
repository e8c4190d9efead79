/** The import/export test app booted on each driver, with request helpers. */
import type { InjectOptions } from 'fastify';
import type { Test } from 'tap';
import type { DataContext, DataEngine, DataRecord } from '../../capabilities/dataEngine.ts';
import type { Logger } from '../../kernel/logger.ts';
import type { RuntimeConfigInput } from '../../runtime/configSchema.ts';
import type { BuiltinPlugin } from '../../runtime/resolvePlugins.ts';
import { databaseCases, POSTGRES_URL, dropEnvironmentSchemas } from '../harness/databases.ts';
import { startTestRuntime, type TestRuntime } from '../harness/startTestRuntime.ts';

export type DriverName = 'sqlite' | 'postgres';

export interface Reply {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  raw: Buffer;
  headers: Record<string, unknown>;
}

export interface Io {
  rt: TestRuntime;
  driver: DriverName;
  environment: string;
  send(method: InjectOptions['method'], url: string, payload?: unknown): Promise<Reply>;
  engine(): DataEngine;
  /** A system context in the test environment (seeding, counting). */
  system: DataContext;
  /** Every record of an object, read by the engine in a system context. */
  all(object: string): Promise<DataRecord[]>;
}

export interface BootOptions {
  builtins?: readonly BuiltinPlugin[];
  config?: RuntimeConfigInput;
  logger?: Logger;
}


const dropSchema = (id: string): Promise<void> => dropEnvironmentSchemas(id);

/** Boots the io test app; the environment id carries the process id so runs never share a schema. */
export async function bootIo(t: Test, driver: DriverName, tag: string, options: BootOptions = {}): Promise<Io> {
  const environment = `${tag}-${process.pid}`;
  if (driver === 'postgres') await dropSchema(environment);
  const rt = await startTestRuntime({
    config: {
      apps: ['test/io/fixtures/ioapp'],
      api: { requireAuth: false },
      environments: [{ id: environment }],
      ...(driver === 'postgres' ? { database: { url: POSTGRES_URL } } : {}),
      ...options.config,
    },
    ...(options.builtins ? { builtins: options.builtins } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  });
  t.teardown(async () => {
    await rt.close();
    if (driver === 'postgres') await dropSchema(environment);
  });
  const engine = () => rt.runtime.kernel.service<DataEngine>('data.engine')!;
  const system: DataContext = { environmentId: environment, principal: null, system: true };
  return {
    rt,
    driver,
    environment,
    system,
    engine,
    async send(method, url, payload) {
      const res = await rt.inject({ method, url, ...(payload === undefined ? {} : typeof payload === 'string' ? { payload } : { payload: payload as object }) });
      const json = /json/.test(String(res.headers['content-type'])) && res.body !== '';
      return { status: res.statusCode, body: json ? (res.json() as unknown) : res.body, raw: res.rawPayload, headers: res.headers };
    },
    async all(object) {
      const rows: DataRecord[] = [];
      let cursor: string | null | undefined = null;
      do {
        const page = await engine().query(object, { orderBy: 'id', limit: 50, ...(cursor ? { cursor } : {}) }, system, { total: false });
        rows.push(...page.items);
        cursor = page.nextCursor;
      } while (cursor);
      return rows;
    },
  };
}

/** Runs `body` once per driver, each in its own subtest with its own runtime. */
export async function onEachDriver(t: Test, tag: string, body: (t: Test, io: Io) => Promise<void>, options: BootOptions = {}): Promise<void> {
  for (const driver of await databaseCases()) {
    await t.test(driver.name, { skip: driver.skip }, async (t) => {
      await body(t, await bootIo(t, driver.name, tag, options));
    });
  }
}
