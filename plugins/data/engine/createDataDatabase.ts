import type { Knex } from 'knex';
import type { DataDatabase } from '../../../capabilities/dataDatabase.ts';
import { codedError } from '../../../kernel/errors.ts';
import { dialectOf } from '../sql/dialect.ts';
import { heldTransaction } from '../sql/heldTransaction.ts';
import { bindingOf } from './engineBinding.ts';
import type { EngineDeps } from './engineDeps.ts';
import { inSavepoint } from './inSavepoint.ts';

const COMMITTED = Promise.resolve(true);

/**
 * The `data.database` service: raw SQL on an environment's database for side tables, in the
 * transaction of a bound engine when one is given. Kept apart from the engine so that holding
 * `data.engine` (records, through security) never gives SQL below it.
 */
export function createDataDatabase(deps: Pick<EngineDeps, 'database' | 'counts'>): DataDatabase {
  return {
    async withDatabase(environmentId, work, within, options) {
      const binding = within ? bindingOf(within) : undefined;
      if (binding && binding.environmentId !== environmentId) {
        throw codedError('VALIDATION_ERROR', { summary: 'a transaction cannot span environments' });
      }
      const knex = binding ? binding.trx : deps.database(environmentId).knex;
      // The engine's own transactions: the write lock at BEGIN on SQLite (heldTransaction.ts), a savepoint when bound.
      const writeTransaction = <T>(run: (trx: Knex.Transaction) => Promise<T>): Promise<T> =>
        binding ? inSavepoint(binding.trx, binding, () => run(binding.trx)) : heldTransaction(knex, (trx) => run(trx));
      try {
        return await work({ knex, dialect: dialectOf(knex), writeTransaction, whenCommitted: () => (binding ? binding.trx.executionPromise.then(() => true, () => false) : COMMITTED) });
      } finally {
        // Side tables may feed queries (a search index): their totals are no longer known, here
        // and, on PostgreSQL, in other processes (writeNotifier.ts; in a transaction, the engine tells them once it committed).
        // Without remembered totals (countCache: 'off') there is nothing to tell; work that names
        // no table it writes (READS_ONLY) changed nothing.
        if (!binding && deps.counts && options?.touches?.length !== 0) {
          deps.counts.changed(environmentId, options?.touches);
          const db = deps.database(environmentId);
          db.signal?.wrote(options?.touches);
        }
      }
    },
  };
}
