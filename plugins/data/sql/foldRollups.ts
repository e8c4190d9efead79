import type { Knex } from 'knex';
import type { Logger } from '../../../kernel/logger.ts';
import { compactRollups } from './rollups.ts';

/** How often a process looks whether its rollups grew enough to fold (sql/rollups.ts). */
export const FOLD_EVERY_MS = 2_000;

/**
 * Folds the rollups of one database every FOLD_EVERY_MS, one fold at a time; a failed fold is
 * logged once until one succeeds again (the sums stay right meanwhile: only reads grow).
 */
export function foldRollups(knex: Knex, log: Logger, environmentId: string): NodeJS.Timeout {
  let running = false;
  let failing = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    compactRollups(knex).then(() => {
      failing = false;
    }, (error: Error) => {
      if (!failing) log.warn({ environment: environmentId, err: error.message }, 'materialized datasets: folding their counts failed; it is tried again');
      failing = true;
    }).finally(() => {
      running = false;
    });
  }, FOLD_EVERY_MS);
  timer.unref();
  return timer;
}
