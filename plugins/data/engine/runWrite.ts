import type { Knex } from 'knex';
import { directRun } from '../sql/sqliteReader.ts';

/**
 * Runs an insert, update or delete in `trx` and answers the rows it changed (an insert's answer is
 * not used): on a SQLite transaction on its connection directly (attachTransactionConnection),
 * else through knex.
 */
export async function runWrite(trx: Knex.Transaction, query: Knex.QueryBuilder): Promise<number> {
  const run = directRun(trx);
  return run ? run(query) : ((await query) as number);
}
