import { SIGNAL_SETTING } from './changeTriggers.ts';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type Sqlite from 'better-sqlite3';
import knexFactory from 'knex';
import type { Knex } from 'knex';
import { createWriteNotifier, type WriteNotifier } from './writeNotifier.ts';
import type pg from 'pg';
import { codedError } from '../../../kernel/errors.ts';
import type { Dialect } from './dialect.ts';
import { SQLITE_BUDGET, SQLITE_LOWER, quoteIdent } from './dialect.ts';
import { BUDGET_EXCEEDED } from '../query/queryCost.ts';
import { attachReadWorkers } from './sqliteReadWorkers.ts';
import { SQLITE_PAGE_CACHE_KB } from './sqlitePageCacheKb.ts';
import { keepStatistics } from './sqliteStatistics.ts';
import { writerHolder } from './idleWriter.ts';
import { attachSqliteReader } from './sqliteReader.ts';

export interface OpenDatabaseOptions {
  /** `sqlite:PATH` (`sqlite::memory:` for a private in-memory database) or `postgres://...`. */
  url: string;
  /** PostgreSQL only: schema used as the search path, created when missing. */
  schema?: string;
  /** SQLite only: how long a writer waits for a lock, in ms (default 5000). */
  busyTimeoutMs?: number;
  /**
   * PostgreSQL only: `statement_timeout` of every pooled connection, in ms (default none). A
   * statement running longer is cancelled by the server (SQLSTATE 57014). Schema sync lifts it for
   * its own transaction.
   */
  statementTimeoutMs?: number;
  /**
   * SQLite file only: read worker threads (sqliteReadWorkers.ts), each with a read-only
   * connection, started as reads need them; 0 runs every read on the main thread. Default 1.
   * An in-memory database has none (a second connection would be another database).
   */
  readers?: number;
}

export interface Database {
  knex: Knex;
  dialect: Dialect;
  /** PostgreSQL schema in use, null on SQLite. */
  schema: string | null;
  /** Version of the SQL engine, e.g. `3.53.2` or `15.20`. */
  serverVersion: string;
  /** PostgreSQL: how committed writes are told to other processes (writeNotifier.ts). */
  signal?: WriteNotifier;
  close(): Promise<void>;
}

interface SqliteConnection {
  pragma(sql: string): unknown;
  function(name: string, options: { deterministic?: boolean; varargs?: boolean }, fn: (...values: unknown[]) => unknown): unknown;
  prepare(sql: string): unknown;
}

/** Prepared statements kept per connection; the engine's SQL varies by query shape, not by value. */
const STATEMENT_CACHE_SIZE = 256;
const SAVEPOINT = /^\s*(savepoint|release|rollback to)\b/i;

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
/** RIGHT and FULL OUTER JOIN arrived in SQLite 3.39. */
const SQLITE_OUTER_JOINS = [3, 39, 0];

// Per-connection type parsers, so values come back as the codec expects without touching pg's globals.
const pgTypes = (types: typeof pg.types) => ({
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20 || oid === 1700) return (value: string) => Number(value); // int8, numeric
    if (oid === 1082) return (value: string) => value; // date stays 'YYYY-MM-DD', no local-time shift
    return types.getTypeParser(oid, format ?? 'text');
  },
});

/** Opens a knex instance for the URL, with the pragmas and search path the engine relies on. */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  const url = options.url.trim();
  if (url.startsWith('sqlite:')) return openSqlite(url, options);
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) return openPostgres(url, options);
  throw codedError('CONFIG_INVALID', {
    path: 'database.url',
    reason: `'${redact(url)}' is neither sqlite:PATH nor postgres://...`,
  });
}

async function openSqlite(url: string, options: OpenDatabaseOptions): Promise<Database> {
  const filename = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '') || ':memory:';
  const busy = options.busyTimeoutMs ?? 5000;
  // The file's directory (the data directory, by default) is made on first start.
  if (filename !== ':memory:') {
    try {
      mkdirSync(dirname(filename), { recursive: true });
    } catch (error) {
      throw codedError('CONFIG_INVALID', {
        path: 'database.url',
        reason: `cannot create the directory of ${filename}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      });
    }
  }
  const setupConnection = (conn: SqliteConnection) => {
    // SQLite's lower() folds ASCII only; $contains needs the same Unicode folding as PostgreSQL.
    conn.function(SQLITE_LOWER, { deterministic: true }, (value: unknown) =>
      typeof value === 'string' ? value.toLowerCase() : value,
    );
    conn.function(SQLITE_BUDGET, { varargs: true }, budget);
    cacheStatements(conn);
    conn.pragma(`busy_timeout = ${Math.max(0, Math.floor(busy))}`);
    conn.pragma(`cache_size = -${SQLITE_PAGE_CACHE_KB}`);
  };
  const writer = writerHolder();
  const knex = knexFactory({
    client: 'better-sqlite3',
    connection: { filename },
    useNullAsDefault: true,
    pool: {
      // One connection: SQLite has one writer, and an in-memory database lives in its connection.
      min: 1,
      max: 1,
      afterCreate(conn: Sqlite.Database, done: (err: Error | null, conn: unknown) => void) {
        try {
          setupConnection(conn);
          if (filename !== ':memory:') conn.pragma('journal_mode = WAL');
          conn.pragma('foreign_keys = ON');
          writer.remember(conn);
          done(null, conn);
        } catch (error) {
          done(error as Error, conn);
        }
      },
    },
  });
  writer.attach(knex);
  const row = (await knex.raw('select sqlite_version() as v')) as Array<{ v: string }>;
  const serverVersion = row[0]!.v;
  if (compareVersions(serverVersion, SQLITE_OUTER_JOINS) < 0) {
    await knex.destroy();
    throw codedError('CONFIG_INVALID', {
      path: 'database.url',
      reason: `SQLite ${serverVersion} lacks RIGHT and FULL JOIN; 3.39 or newer is required (update better-sqlite3)`,
    });
  }
  // An in-memory database lives in its one connection: a second one would be another database.
  const closeReader = filename === ':memory:' ? () => undefined : attachSqliteReader(knex, filename, setupConnection);
  const readers = Math.max(0, Math.floor(options.readers ?? 1));
  const closeWorkers = filename === ':memory:' || readers === 0 ? async () => undefined : attachReadWorkers(knex, filename, { size: readers });
  const stopStatistics = keepStatistics(knex);
  return {
    knex, dialect: 'sqlite', schema: null, serverVersion,
    close: async () => {
      stopStatistics();
      closeReader();
      await closeWorkers();
      await knex.destroy();
    },
  };
}

async function openPostgres(url: string, options: OpenDatabaseOptions): Promise<Database> {
  const schema = options.schema ?? null;
  if (schema !== null && !SCHEMA_NAME.test(schema)) {
    throw codedError('CONFIG_INVALID', {
      path: 'environments',
      reason: `'${schema}' is not a valid schema name (lowercase letters, digits and _; at most 63 characters)`,
    });
  }
  // Loaded here, not at start: a SQLite deployment never needs the PostgreSQL driver.
  const pgDriver = await loadPg();
  const knex = knexFactory({
    client: 'pg',
    connection: {
      connectionString: url,
      types: pgTypes(pgDriver.types),
      // A query is sent without waiting for the answers before it (each still ends with its own
      // Sync): a transaction's BEGIN travels with its first statement (heldTransaction.ts). The
      // engine awaits every other statement before the next, and uses no cursors (which the mode refuses).
      pipeline: true,
      // The runtime tells its own writes after their commit (writeNotifier.ts): the tables' change
      // triggers, there for other programs' writes, stay quiet on its connections (changeTriggers.ts).
      options: `-c ${SIGNAL_SETTING}=off`,
      ...(options.statementTimeoutMs ? { statement_timeout: Math.floor(options.statementTimeoutMs) } : {}),
    } as Knex.PgConnectionConfig,
    pool: { min: 0, max: 10 },
    ...(schema ? { searchPath: [schema] } : {}),
  });
  try {
    if (schema) await knex.raw(`create schema if not exists ${quoteIdent(schema)}`);
    const result = (await knex.raw('show server_version')) as { rows: Array<{ server_version: string }> };
    const serverVersion = result.rows[0]!.server_version.split(' ')[0]!;
    const signal = createWriteNotifier(knex, schema);
    return { knex, dialect: 'postgres', schema, serverVersion, signal, close: async () => { await signal.settled(); await knex.destroy(); } };
  } catch (error) {
    await knex.destroy();
    throw codedError('SERVICE_UNAVAILABLE', {
      service: 'PostgreSQL',
      reason: `${redact(url)}: ${(error as Error).message}`,
    });
  }
}

/**
 * knex prepares every query afresh, which costs SQLite more than running a simple one. Reusing the
 * statement of the same SQL text is safe: knex runs each to completion (all/run), and SQLite
 * re-prepares a cached statement by itself when the schema changes. Least recently used goes first.
 */
function cacheStatements(conn: SqliteConnection): void {
  const prepare = conn.prepare.bind(conn);
  const cache = new Map<string, unknown>();
  conn.prepare = (sql: string) => {
    // knex names each savepoint anew: such text never repeats, and would push out what does.
    if (SAVEPOINT.test(sql)) return prepare(sql);
    let statement = cache.get(sql);
    if (statement !== undefined) {
      cache.delete(sql);
    } else {
      statement = prepare(sql);
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
    }
    cache.set(sql, statement);
    return statement;
  };
}

/** os_budget(deadline, ...): see SQLITE_BUDGET. */
function budget(deadline: unknown): number {
  if (typeof deadline === 'number' && Date.now() > deadline) throw Object.assign(new Error(BUDGET_EXCEEDED), { code: BUDGET_EXCEEDED });
  return 1;
}

function compareVersions(version: string, minimum: number[]): number {
  const parts = version.split('.').map((p) => Number.parseInt(p, 10) || 0);
  for (let i = 0; i < minimum.length; i++) {
    const diff = (parts[i] ?? 0) - minimum[i]!;
    if (diff !== 0) return diff;
  }
  return 0;
}

/** A URL without its password, for messages. */
function redact(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@/]*@/, '//$1:***@');
}

/**
 * The pg driver. When it loads, it tells a Cloudflare Worker from other runtimes by its navigator's
 * user agent, or else by constructing a fetch Response; Node 20 has no navigator, and constructing
 * a Response loads Node's whole fetch implementation (about 25 ms) before the runtime listens. For
 * the length of the import, a navigator with Node's user agent (what Node 21+ provides) answers.
 */
async function loadPg(): Promise<typeof pg> {
  const global = globalThis as { navigator?: unknown };
  if (global.navigator !== undefined) return (await import('pg')).default;
  Object.defineProperty(globalThis, 'navigator', { value: { userAgent: `Node.js/${process.versions.node.split('.')[0]}` }, configurable: true, writable: true });
  try {
    return (await import('pg')).default;
  } finally {
    delete global.navigator;
  }
}
