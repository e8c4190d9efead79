import type { Knex } from 'knex';
import type { DataEngine } from './dataEngine.ts';
import { defineCapability } from './defineCapability.ts';

/** SQL access to an environment's database, for side tables a plugin owns. */
export interface SideTableAccess {
  /** The transaction of the engine given as `within` when it is bound to one, else the environment's pool. */
  knex: Knex;
  dialect: 'sqlite' | 'postgres';
  /**
   * Runs `work` in a transaction that writes, committed if it resolves, rolled back if not. On
   * SQLite it takes the write lock at BEGIN (`BEGIN IMMEDIATE`, waiting up to the busy timeout
   * while another connection writes): a transaction that read first and asked for the lock later
   * would fail at once (SQLITE_BUSY) when another process committed in between. Inside a bound
   * engine's transaction (`within`), a savepoint of it. Use it instead of `knex.transaction`.
   */
  writeTransaction<T>(work: (trx: Knex.Transaction) => Promise<T>): Promise<T>;
}

/** What `withDatabase` hands its work: the access, and when its writes are seen by others. */
export interface DatabaseWork extends SideTableAccess {
  /**
   * Settles once what `work` wrote is final for every other connection: with `within`, when its
   * transaction ended (true: committed; false: rolled back); otherwise at once, true. Work that
   * others must not see before the write commits (a job that reads the row, a file removed) waits
   * for it: queued at once, it may run before the commit and find nothing.
   */
  whenCommitted(): Promise<boolean>;
}

export interface DataDatabase {
  /**
   * Runs `work` with raw SQL access to the environment's database, below row and field security:
   * for side tables the plugin owns (a search index, say), never for records, which go through
   * `data.engine`. With `within`, an engine bound to a transaction (a write hook's `event.engine`,
   * or the one `engine.transaction` hands its work), the access is that transaction, so side-table
   * changes commit or roll back with the write; any other engine, or none, gives the pool.
   */
  withDatabase<T>(environmentId: string, work: (db: DatabaseWork) => Promise<T>, within?: DataEngine, options?: WithDatabaseOptions): Promise<T>;
}

export interface WithDatabaseOptions {
  /**
   * The only tables `work` may write. Totals the data engine remembers (docs/data-api.md, Totals)
   * are forgotten for these tables only, instead of for every table of the environment: for work
   * that runs often and writes tables few lists read (a job queue's claims). Default: any table.
   * An empty list (READS_ONLY): the work only reads; no total is forgotten and, on PostgreSQL, no
   * other process is told anything (no NOTIFY).
   */
  touches?: readonly string[];
}

/** Options for `withDatabase` work that writes nothing (a search's candidates, a lookup): totals stay remembered. */
export const READS_ONLY: WithDatabaseOptions = Object.freeze({ touches: Object.freeze([]) });

export const dataDatabase = defineCapability<DataDatabase>()({
  id: 'data.database',
  cardinality: 'single',
  description: 'Raw SQL on an environment database, below row and field security, for side tables a plugin owns; grant it only to plugins trusted like first-party code.',
});
