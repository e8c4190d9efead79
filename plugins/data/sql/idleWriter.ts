import type Sqlite from 'better-sqlite3';
import type { Knex } from 'knex';

/** What idleWriter reads of knex's connection pool (tarn's). */
interface PoolCounts {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
  numPendingCreates(): number;
  numPendingValidations(): number;
}

/** The writer connection last made by each SQLite knex's pool (its one connection). */
const writers = new WeakMap<Knex, { conn: Sqlite.Database | undefined }>();

/**
 * Remembers the connections a SQLite knex's pool makes; `remember` goes into the pool's
 * `afterCreate`, once the connection is set up, and `attach` ties the holder to the knex made with it.
 */
export function writerHolder(): { remember(conn: Sqlite.Database): void; attach(knex: Knex): void } {
  const holder: { conn: Sqlite.Database | undefined } = { conn: undefined };
  return {
    remember: (conn) => { holder.conn = conn; },
    attach: (knex) => { writers.set(knex, holder); },
  };
}

/**
 * The SQLite writer connection of `knex` when nobody holds or waits for it: its one connection
 * is free in the pool, open, and no acquire, creation or validation is under way. A statement
 * run on it synchronously right now cannot interleave with a transaction (which holds the
 * connection from BEGIN to COMMIT), and costs no acquire and release through the pool (a
 * promise, a pending operation and its timer each). Undefined otherwise: go through the pool.
 */
export function idleWriter(knex: Knex): Sqlite.Database | undefined {
  const conn = writers.get(knex)?.conn;
  if (!conn?.open) return undefined;
  const pool = (knex.client as { pool?: PoolCounts }).pool;
  if (!pool || pool.numUsed() !== 0 || pool.numFree() !== 1) return undefined;
  if (pool.numPendingAcquires() !== 0 || pool.numPendingCreates() !== 0 || pool.numPendingValidations() !== 0) return undefined;
  return conn;
}

/** The SQLite writer connection of `knex` (open or not), whoever holds it; undefined for anything else. */
export function writerConnection(knex: Knex): Sqlite.Database | undefined {
  return writers.get(knex)?.conn;
}
