import type { Knex } from 'knex';

/** One name for every level: SQLite and PostgreSQL both resolve a repeated name to the innermost savepoint. */
const SAVEPOINT = 'osr_nested';

/** The last call started at each level, so the next one starts after it. */
const tails = new WeakMap<object, Promise<unknown>>();

/**
 * Runs `work` in a savepoint of the open transaction `trx`: a failure rolls back what `work` did
 * and leaves the transaction usable (PostgreSQL aborts a transaction on a failed statement
 * otherwise); success keeps it for the transaction's commit. Calls at the same `level` (the engine
 * they were made on) run one after another, since a savepoint opened while a sibling's is open
 * would sit inside it; a call made from inside `work` is at a new level and runs at once.
 *
 * The statements are fixed text, so each is prepared once per connection (knex's own nested
 * transactions name each savepoint anew and build a transaction object for every call).
 */
export function inSavepoint<T>(trx: Knex.Transaction, level: object, work: () => Promise<T>): Promise<T> {
  const previous = tails.get(level);
  const run = previous ? previous.then(() => savepoint(trx, work)) : savepoint(trx, work);
  tails.set(level, run.catch(() => undefined));
  return run;
}

async function savepoint<T>(trx: Knex.Transaction, work: () => Promise<T>): Promise<T> {
  await trx.raw(`savepoint ${SAVEPOINT}`);
  let result: T;
  try {
    result = await work();
  } catch (error) {
    // If undoing fails too, the transaction is unusable: that failure is the one to report.
    await trx.raw(`rollback to savepoint ${SAVEPOINT}`);
    await trx.raw(`release savepoint ${SAVEPOINT}`);
    throw error;
  }
  await trx.raw(`release savepoint ${SAVEPOINT}`);
  return result;
}
