import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import type pg from 'pg';
import { codedError } from '../../kernel/errors.ts';
import type { EnvironmentInfo } from '../../capabilities/runtimeInfo.ts';

type Row = Record<string, unknown>;

/** The identity database of one environment, as the auth engine and our own few statements use it. */
export interface AuthDatabase {
  dialect: 'sqlite' | 'postgres';
  /** What the engine takes as `database`: a better-sqlite3 connection or a pg pool. */
  engineHandle: Database.Database | pg.Pool;
  /** Run one statement with `?` placeholders. */
  query(sql: string, params?: unknown[]): Promise<Row[]>;
  close(): Promise<void>;
}

const SCHEMA = /^[a-z_][a-z0-9_]{0,62}$/;

/** Open the environment's database: its SQLite file, or its PostgreSQL schema (created if missing). */
export async function openAuthDatabase(env: EnvironmentInfo): Promise<AuthDatabase> {
  const url = env.databaseUrl.trim();
  if (url.startsWith('sqlite:')) return openSqlite(url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '') || ':memory:');
  if (/^postgres(ql)?:\/\//.test(url)) return openPostgres(url, env.schema);
  throw codedError('CONFIG_INVALID', { path: `environments.${env.id}.databaseUrl`, reason: 'use sqlite:PATH or postgres://...' });
}

// Each driver is loaded by the first database that uses it, not at start.
async function openSqlite(file: string): Promise<AuthDatabase> {
  const { default: Sqlite } = await import('better-sqlite3');
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Sqlite(file);
  if (file !== ':memory:') db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  return {
    dialect: 'sqlite',
    engineHandle: db,
    async query(sql, params = []) {
      const statement = db.prepare(sql);
      return statement.reader ? (statement.all(...params) as Row[]) : (statement.run(...params), []);
    },
    async close() {
      db.close();
    },
  };
}

async function openPostgres(url: string, schema: string | null): Promise<AuthDatabase> {
  if (schema !== null && !SCHEMA.test(schema)) {
    throw codedError('CONFIG_INVALID', { path: 'environments', reason: `'${schema}' is not a valid PostgreSQL schema name` });
  }
  const { default: pgDriver } = await import('pg');
  const pool = new pgDriver.Pool({
    connectionString: url,
    max: 10,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  // An idle connection the server terminates emits 'error' on the pool; unheard, it would end the
  // process. The pool drops that connection and opens a new one for the next query.
  pool.on('error', () => undefined);
  // A connection the engine has checked out (between the statements of a transaction, or before
  // its first) has no listener of the pool's: its 'error' would end the process. Heard here, the
  // engine's next statement on it fails instead, and the pool drops it when it is released.
  pool.on('connect', (client) => client.on('error', () => undefined));
  try {
    if (schema) await pool.query(`create schema if not exists "${schema}"`);
  } catch (error) {
    await pool.end();
    throw codedError('SERVICE_UNAVAILABLE', { service: 'PostgreSQL', reason: (error as Error).message });
  }
  return {
    dialect: 'postgres',
    engineHandle: pool,
    async query(sql, params = []) {
      let n = 0;
      const result = await pool.query(sql.replace(/\?/g, () => `$${++n}`), params);
      return result.rows as Row[];
    },
    async close() {
      await pool.end();
    },
  };
}
