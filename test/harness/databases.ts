import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { postgresProblem } from './postgresProblem.ts';
import type { Test } from 'tap';
import type { Database } from '../../plugins/data/sql/openDatabase.ts';
import { openDatabase } from '../../plugins/data/sql/openDatabase.ts';

export const POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface DatabaseCase {
  name: 'sqlite' | 'postgres';
  /** Reason to skip (PostgreSQL unreachable outside CI), or false. */
  skip: string | false;
  /**
   * Opens a fresh database for this test: a temporary SQLite file, or a new PostgreSQL schema.
   * Teardown closes it and removes the file or drops the schema.
   */
  open(t: Test): Promise<Database>;
}


/**
 * The drivers every data test runs on. PostgreSQL unreachable: the case fails when CI=true
 * (a green CI must have run it) and is skipped with the reason otherwise.
 */
export async function databaseCases(): Promise<DatabaseCase[]> {
  const pgProblem = await postgresProblem(POSTGRES_URL);
  const ci = process.env.CI === 'true';
  return [
    {
      name: 'sqlite',
      skip: false,
      async open(t) {
        const dir = mkdtempSync(join(tmpdir(), 'osr-sqlite-'));
        const db = await openDatabase({ url: `sqlite:${join(dir, 'test.db')}` });
        t.teardown(async () => {
          await db.close();
          rmSync(dir, { recursive: true, force: true });
        });
        return db;
      },
    },
    {
      name: 'postgres',
      skip: pgProblem !== null && !ci ? `PostgreSQL unreachable at ${POSTGRES_URL} (${pgProblem}); set CI=true to make this a failure` : false,
      async open(t) {
        if (pgProblem !== null) {
          t.fail(`PostgreSQL is required when CI=true but is unreachable at ${POSTGRES_URL}: ${pgProblem}`);
          throw new Error(`PostgreSQL unreachable: ${pgProblem}`);
        }
        const schema = `t_${process.pid}_${randomBytes(4).toString('hex')}`;
        const db = await openDatabase({ url: POSTGRES_URL, schema });
        t.teardown(async () => {
          await db.knex.raw(`drop schema if exists "${schema}" cascade`);
          await db.close();
        });
        return db;
      },
    },
  ];
}

/** The PostgreSQL schema that holds an environment's data (`env_<id>`, dashes as underscores). */
export const environmentSchema = (id: string) => `env_${id.replace(/-/g, '_')}`;

/** Drops the schemas of these environments on the test PostgreSQL, if they exist. */
export async function dropEnvironmentSchemas(...ids: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    for (const id of ids) await client.query(`drop schema if exists "${environmentSchema(id)}" cascade`);
  } finally {
    await client.end();
  }
}
