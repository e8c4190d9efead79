import Sqlite from 'better-sqlite3';
import type { Knex } from 'knex';

/** Runs a compiled select (or its SQL) and returns its rows, synchronously. */
export type DirectRead = (query: Knex.QueryBuilder | { sql: string; bindings: readonly unknown[] }) => Array<Record<string, unknown>>;

const readers = new WeakMap<Knex, DirectRead>();

/**
 * The direct reader of a knex instance that openDatabase opened on a SQLite file; undefined for
 * anything else (a transaction, PostgreSQL, an in-memory database), which goes through knex.
 */
export function directReader(knex: Knex): DirectRead | undefined {
  return (knex as Attached)[TRANSACTION_READ] ?? readers.get(knex);
}

/** What knex's better-sqlite3 client does to bindings before running a statement. */
export function formatBinding(value: unknown): unknown {
  if (value instanceof Date) return value.valueOf();
  if (typeof value === 'boolean') return Number(value);
  return value;
}

/** Column names of each statement seen, read once: better-sqlite3's `columns()` costs more than a by-id read. */
const columnNames = new WeakMap<Sqlite.Statement, string[]>();

/**
 * Runs a statement in raw mode (rows as arrays) and builds the row objects here: better-sqlite3's
 * own row objects cost about twice as much to make and to read. Later columns of the same name
 * win, as in better-sqlite3's objects. A row of another width than the names remembered (a
 * statement re-prepared after a schema change) reads the names again.
 */
function readRows(statement: Sqlite.Statement, bindings: unknown[]): Array<Record<string, unknown>> {
  let names = columnNames.get(statement);
  if (!names) {
    names = statement.raw(true).columns().map((column) => column.name);
    columnNames.set(statement, names);
  }
  const raw = statement.all(bindings) as unknown[][];
  const rows: Array<Record<string, unknown>> = new Array(raw.length);
  for (let r = 0; r < raw.length; r++) {
    const values = raw[r]!;
    if (values.length !== names.length) {
      names = statement.columns().map((column) => column.name);
      columnNames.set(statement, names);
    }
    const row: Record<string, unknown> = {};
    for (let c = 0; c < names.length; c++) row[names[c]!] = values[c];
    rows[r] = row;
  }
  return rows;
}

/** Reopens the read connection of a knex instance (see attachSqliteReader), if it has one. */
const reopeners = new WeakMap<Knex, () => void>();

/**
 * A second connection to the file, for reads outside a transaction. In WAL mode readers never
 * wait for the writer and see what it committed; going straight to better-sqlite3 skips knex's
 * pool and runner, which cost more than a simple indexed read itself. Statements are prepared by
 * `setup` (the same cache and functions as the writer). Queries still emit knex's 'query' event.
 * Returns the function that closes the connection.
 */
export function attachSqliteReader(knex: Knex, filename: string, setup: (conn: Sqlite.Database) => void): () => void {
  const open = () => {
    const conn = new Sqlite(filename);
    setup(conn);
    conn.pragma('query_only = ON');
    return conn;
  };
  let db = open();
  readers.set(knex, (query) => {
    const { sql, bindings } = 'toSQL' in query ? query.toSQL() : query;
    if (knex.listenerCount('query') > 0) knex.emit('query', { sql, bindings, method: 'select' });
    return readRows(db.prepare(sql), bindings.map(formatBinding));
  });
  reopeners.set(knex, () => {
    const replaced = db;
    db = open();
    replaced.close();
  });
  return () => {
    readers.delete(knex);
    reopeners.delete(knex);
    db.close();
  };
}

/**
 * Replaces the read connection with a new one. A connection loads the planner's statistics with
 * the schema and keeps them (and its prepared statements' plans) when another connection analyzes;
 * reloading them in place (`ANALYZE sqlite_schema`) would wait for the writer's lock. Reads are
 * synchronous, so none is under way while this runs.
 */
export function reopenSqliteReader(knex: Knex): void {
  reopeners.get(knex)?.();
}

/** Runs an insert, update or delete of an open SQLite transaction and answers the rows it changed. */
export type DirectRun = (query: Knex.QueryBuilder) => number;

// Kept on the transaction object itself, which lives as long as the transaction: a weak map of
// one entry per write would cost the young generation's collections more.
const TRANSACTION_READ = Symbol('transactionRead');
const TRANSACTION_RUN = Symbol('transactionRun');
type Attached = Knex & { [TRANSACTION_READ]?: DirectRead; [TRANSACTION_RUN]?: DirectRun };

/** The direct runner of a SQLite transaction attached by attachTransactionConnection; undefined otherwise. */
export function directRun(knex: Knex): DirectRun | undefined {
  return (knex as Attached)[TRANSACTION_RUN];
}

/**
 * Statements of an open SQLite transaction `trx` run on its own connection `conn` (the writer,
 * which sees what the transaction wrote) through better-sqlite3 directly, as the file reader does
 * outside transactions: knex's runner costs more than a read by id or a one-row write. Reads use
 * the connection's cached statements, which knex also runs, so each is put back out of raw mode
 * after use. Every statement still emits knex's 'query' event, and a failed write carries the
 * statement in its message as knex's runner writes it.
 */
export function attachTransactionConnection(trx: Knex.Transaction, conn: Sqlite.Database): void {
  const client = trx.client as { emit(event: string, data: unknown): void; listenerCount(event: string): number };
  const attached = trx as Attached;
  attached[TRANSACTION_READ] = (query) => {
    const { sql, bindings } = 'toSQL' in query ? query.toSQL() : query;
    completed(trx);
    if (client.listenerCount('query') > 0) client.emit('query', { sql, bindings, method: 'select' });
    return runReturning(conn, sql, bindings);
  };
  attached[TRANSACTION_RUN] = (query) => {
    const { sql, bindings, method } = query.toSQL() as { sql: string; bindings: readonly unknown[]; method: string };
    completed(trx);
    if (client.listenerCount('query') > 0) client.emit('query', { sql, bindings, method });
    try {
      return conn.prepare(sql).run(bindings.map(formatBinding)).changes;
    } catch (error) {
      if (error instanceof Error) error.message = `${query.toString()} - ${error.message}`;
      throw error;
    }
  };
}

/**
 * Runs a statement that answers rows (a select, or a write with `returning`) on `conn` through its
 * cached statement, which knex also runs: put back out of raw mode after use.
 */
export function runReturning(conn: Sqlite.Database, sql: string, bindings: readonly unknown[]): Array<Record<string, unknown>> {
  const statement = conn.prepare(sql).raw(true);
  try {
    return readRows(statement, bindings.map(formatBinding));
  } finally {
    statement.raw(false);
  }
}

/** After its commit or rollback the connection belongs to others: knex's own refusal, in its words. */
function completed(trx: Knex.Transaction): void {
  if (trx.isCompleted()) throw new Error('Transaction query already complete, run with DEBUG=knex:tx for more info');
}
