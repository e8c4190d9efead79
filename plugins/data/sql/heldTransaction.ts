import { createRequire } from 'node:module';
import type { Knex } from 'knex';
import { dialectOf } from './dialect.ts';

/**
 * A top-level transaction of the data engine without knex's transaction object: knex builds a
 * whole knex instance for every transaction (a hundred properties defined on a new function, four
 * listeners, a client copy) and runs BEGIN and COMMIT through its runner, about 100 µs of CPU on
 * SQLite where the statements themselves take 10. Here each pooled connection gets one knex
 * instance bound to it, made on its first transaction and kept with it; a transaction borrows the
 * connection from knex's pool (so it excludes every other user of that connection, as knex's own
 * transaction does), runs BEGIN and COMMIT on the driver, and hands `work` a light handle: a
 * function whose prototype is the bound instance, so `trx(table)`, `trx.raw` and every knex method
 * work on the held connection.
 *
 * A handle answers `isCompleted()` and refuses statements once its transaction has ended (knex's
 * error, in its words): each builder it makes carries it, and the bound client's runner checks that
 * it is the connection's current transaction. Nested `trx.transaction(work)` runs in a savepoint.
 * Statements emit knex's 'query' event on the pool's knex as before (BEGIN and COMMIT too).
 */
export type HeldWork<T> = (trx: Knex.Transaction, connection: unknown) => Promise<T>;

const makeKnex = createRequire(import.meta.url)('knex/lib/knex-builder/make-knex.js') as (client: unknown) => Knex;

const OWNER = Symbol('heldTransaction');
const COMPLETED_MESSAGE = 'Transaction query already complete, run with DEBUG=knex:tx for more info';

interface Handle {
  completed: boolean;
  /** knex's `executionPromise`, made when first asked for: settled by the commit (its value) or the rollback (its error). */
  outcome?: { promise: Promise<unknown>; resolve(value: unknown): void; reject(error: unknown): void };
}
type Tagged = { [OWNER]?: Handle };

/** A connection's bound knex and the transaction holding it now. */
interface Held {
  bound: Knex;
  /** What its handles share (handlePrototype). */
  prototype: object;
  current: Handle | null;
}

interface PoolClient {
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<unknown>;
  emit(event: string, ...args: unknown[]): boolean;
  listenerCount(event: string): number;
}

const helds = new WeakMap<object, Held>();

function heldFor(client: PoolClient, connection: object): Held {
  let held = helds.get(connection);
  if (held) return held;
  const base = client as unknown as Record<string, unknown> & { constructor: { prototype: object } };
  // As knex's own transaction client: the pool's settings, always the one connection, never released.
  const bound = Object.create(base.constructor.prototype) as Record<string, unknown> & PoolClient & {
    runner(builder: unknown): unknown;
    query(conn: unknown, obj: unknown): Promise<unknown>;
    on(event: string, listener: (...args: unknown[]) => void): void;
  };
  for (const key of ['version', 'config', 'driver', 'connectionSettings', 'valueForUndefined', 'logger']) bound[key] = base[key];
  bound.transacting = true;
  for (const event of ['start', 'query', 'query-error', 'query-response']) bound.on(event, (...args) => client.emit(event, ...args));
  const runner = bound.runner as (this: unknown, builder: unknown) => unknown;
  // A refused statement is a rejected promise, as knex's own refusal is, not a throw out of `then`.
  bound.runner = function (this: unknown, builder: unknown) {
    const owner = (builder as Tagged)[OWNER];
    const refused = !held!.current || held!.current.completed || (owner !== undefined && owner !== held!.current);
    if (!refused) return runner.call(this, builder);
    const refusal = () => {
      throw new Error(COMPLETED_MESSAGE);
    };
    return { run: () => Promise.reject(new Error(COMPLETED_MESSAGE)), stream: refusal, pipe: refusal };
  };
  const query = bound.query as (this: unknown, conn: unknown, obj: unknown) => Promise<unknown>;
  bound.query = function (this: unknown, conn: unknown, obj: unknown) {
    try {
      if (!held!.current || held!.current.completed) throw new Error(COMPLETED_MESSAGE);
      if (conn !== connection) throw new Error('Invalid connection for transaction query.');
    } catch (error) {
      return Promise.reject(error);
    }
    return query.call(this, conn, obj);
  };
  bound.acquireConnection = () => Promise.resolve(connection);
  bound.releaseConnection = () => Promise.resolve();
  const made: Held = { bound: makeKnex(bound), prototype: {}, current: null };
  made.prototype = handlePrototype(made, client);
  held = made;
  helds.set(connection, held);
  return held;
}

function tag<T>(value: T, handle: Handle): T {
  (value as Tagged)[OWNER] = handle;
  return value;
}

/** Runs a fixed statement (BEGIN, COMMIT, a savepoint) on the connection, emitting knex's 'query' event. */
async function control(client: PoolClient, dialect: 'sqlite' | 'postgres', connection: unknown, sql: string): Promise<void> {
  if (client.listenerCount('query') > 0) client.emit('query', { sql, bindings: [], method: 'raw' });
  if (dialect === 'sqlite') (connection as { prepare(sql: string): { run(): unknown } }).prepare(sql).run();
  else await (connection as { query(sql: string): Promise<unknown> }).query(sql);
}

/**
 * Runs `work` in a transaction of its own on a connection of `knex`'s pool: committed if it
 * resolves, rolled back if not. `committed` runs the moment COMMIT returned, before anything
 * waiting on the commit (`executionPromise`) or on this call goes on.
 */
export async function heldTransaction<T>(knex: Knex, work: HeldWork<T>, committed?: () => void): Promise<T> {
  const client = knex.client as unknown as PoolClient;
  const dialect = dialectOf(knex);
  const connection = await client.acquireConnection();
  const held = heldFor(client, connection as object);
  const handle: Handle = { completed: false };
  try {
    held.current = handle;
    // PostgreSQL: BEGIN goes out with the work's first statement, without waiting for its answer
    // (the pool's connections pipeline, openDatabase.ts): a write saves a round trip. Its outcome
    // is awaited before COMMIT; a BEGIN that failed fails every statement sent behind it too.
    // SQLite: the write lock is taken at BEGIN (waiting up to the busy timeout while another
    // process writes, osr start --workers N): a transaction that read first and took it later
    // would fail at once when another process had committed in between.
    const begun = control(client, dialect, connection, dialect === 'sqlite' ? 'BEGIN IMMEDIATE;' : 'BEGIN;');
    if (dialect === 'sqlite') await begun;
    else begun.catch(() => undefined);
    const trx = handleFor(held, handle);
    let result: T;
    try {
      result = await work(trx, connection);
      await begun;
    } catch (error) {
      handle.completed = true;
      await rollback(client, dialect, connection);
      handle.outcome?.reject(error);
      throw error;
    }
    handle.completed = true;
    try {
      await control(client, dialect, connection, 'COMMIT;');
    } catch (error) {
      await rollback(client, dialect, connection);
      handle.outcome?.reject(error);
      throw error;
    }
    committed?.();
    handle.outcome?.resolve(result);
    return result;
  } finally {
    handle.completed = true;
    held.current = null;
    await client.releaseConnection(connection);
  }
}

/** Undoes what is open; a connection that cannot roll back is left to the pool's own checks (PostgreSQL marks a broken one). */
async function rollback(client: PoolClient, dialect: 'sqlite' | 'postgres', connection: unknown): Promise<void> {
  if (dialect === 'sqlite' && !(connection as { inTransaction: boolean }).inTransaction) return;
  try {
    await control(client, dialect, connection, 'ROLLBACK;');
  } catch (error) {
    if (dialect === 'postgres') (connection as { __knex__disposed?: unknown }).__knex__disposed = error;
  }
}

/** The handle's transaction, on the handle itself. */
const STATE = Symbol('heldState');
type HandleFn = Knex.Transaction & { [STATE]: Handle };

/**
 * What every handle of a connection shares, defined once: the methods that differ from the bound
 * knex's read their transaction from the handle (`this`), so a new handle is one function, one
 * prototype link and one property.
 */
function handlePrototype(held: Held, client: PoolClient): object {
  const { bound } = held;
  const refuse = () => Promise.reject(new Error('a held transaction commits or rolls back when its work ends'));
  // knex defines its context methods read-only: these are defined, not assigned.
  return Object.create(bound, {
    raw: { value(this: HandleFn, ...args: unknown[]) { return tag((bound.raw as (...a: unknown[]) => object)(...args), this[STATE]); } },
    queryBuilder: { value(this: HandleFn) { return tag(bound.queryBuilder(), this[STATE]); } },
    isTransaction: { value: true },
    isCompleted: { value(this: HandleFn) { return this[STATE].completed; } },
    // Events the handle emits itself (statements run on its connection outside knex's runner) reach the pool's listeners.
    emit: { value: (event: string, ...args: unknown[]) => client.emit(event, ...args) },
    listenerCount: { value: (event: string) => client.listenerCount(event) },
    // A nested transaction is a savepoint of this one, on the same handle.
    transaction: {
      async value(this: HandleFn, nested: (inner: Knex.Transaction) => Promise<unknown>) {
        await this.raw('savepoint osr_held_nested');
        try {
          const result = await nested(this);
          await this.raw('release savepoint osr_held_nested');
          return result;
        } catch (error) {
          await this.raw('rollback to savepoint osr_held_nested');
          await this.raw('release savepoint osr_held_nested');
          throw error;
        }
      },
    },
    // What runs once the transaction ended (a file's bytes go after the delete committed) waits on this.
    executionPromise: {
      get(this: HandleFn) {
        const handle = this[STATE];
        if (!handle.outcome) {
          let resolve!: (value: unknown) => void;
          let reject!: (error: unknown) => void;
          const promise = new Promise((yes, no) => {
            resolve = yes;
            reject = no;
          });
          // A rollback nobody waits for is no unhandled rejection.
          promise.catch(() => undefined);
          handle.outcome = { promise, resolve, reject };
        }
        return handle.outcome.promise;
      },
    },
    commit: { value: refuse },
    rollback: { value: refuse },
  });
}

/** The handle `work` gets: callable as knex, every builder it makes tagged with its transaction. */
function handleFor(held: Held, handle: Handle): Knex.Transaction {
  const { bound } = held;
  const trx = ((table: string, options?: unknown) => tag((bound as unknown as (t: string, o?: unknown) => object)(table, options), handle)) as unknown as HandleFn;
  Object.setPrototypeOf(trx, held.prototype);
  trx[STATE] = handle;
  return trx;
}
