import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { RuntimeConfigInput } from '../runtime/configSchema.ts';

export type BenchDriver = 'sqlite' | 'postgres';

export const BENCH_POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** One database both servers use: a SQLite file, or a PostgreSQL schema. */
export interface DatabaseTarget {
  driver: BenchDriver;
  /** The runtime's environment id; it names the SQLite file or the PostgreSQL schema. */
  environmentId: string;
  dataDir: string;
  url: string;
  schema: string | null;
  file: string | null;
  /** The part of the runtime config that points at this database. */
  runtimeConfig: RuntimeConfigInput;
  dispose(): Promise<void>;
}

/** A fresh database for one driver, laid out the way the runtime lays out an environment. */
export async function createDatabaseTarget(driver: BenchDriver): Promise<DatabaseTarget> {
  const dataDir = mkdtempSync(join(tmpdir(), 'osr-bench-'));
  if (driver === 'sqlite') {
    const environmentId = 'bench';
    const file = join(dataDir, `${environmentId}.db`);
    return {
      driver, environmentId, dataDir, url: `sqlite:${file}`, schema: null, file,
      runtimeConfig: { dataDir, environments: [{ id: environmentId }] },
      async dispose() {
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  // The runtime puts each listed environment of a PostgreSQL database in schema env_<id>.
  const environmentId = `bench-${process.pid}`;
  const schema = `env_${environmentId.replace(/-/g, '_')}`;
  const dropSchema = async () => {
    const client = new pg.Client({ connectionString: BENCH_POSTGRES_URL });
    await client.connect();
    try {
      await client.query(`drop schema if exists "${schema}" cascade`);
    } finally {
      await client.end();
    }
  };
  await dropSchema();
  return {
    driver, environmentId, dataDir, url: BENCH_POSTGRES_URL, schema, file: null,
    runtimeConfig: { dataDir, environments: [{ id: environmentId }], database: { url: BENCH_POSTGRES_URL } },
    async dispose() {
      await dropSchema();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

