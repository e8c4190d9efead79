import type { Knex } from 'knex';
import type { ResolvedObject } from '../../../metadata/types.ts';
import { dialectOf } from '../sql/dialect.ts';
import { introspectSchema } from '../sql/introspectSchema.ts';
import { buildIndexAdvice } from './buildIndexAdvice.ts';
import type { SlowQueryRecorder } from './slowQueryRecorder.ts';

export interface AutoIndexerOptions {
  recorder: SlowQueryRecorder;
  knexOf(environmentId: string): Knex;
  objectOf(name: string): ResolvedObject | undefined;
  /** Automatic indexes one object may hold (`plugins.data.autoIndexMax`). */
  maxPerObject: number;
  log: { info(data: object, message: string): void; warn(data: object, message: string): void };
}

/**
 * `plugins.data.autoIndex`: after a slow read, the advised indexes (buildIndexAdvice.ts) are built,
 * at most `maxPerObject` `osr_auto_` indexes per object, one pass per environment at a time
 * (PostgreSQL: `create index concurrently`, outside any transaction, so writes go on).
 */
export function createAutoIndexer(options: AutoIndexerOptions): { consider(environmentId: string): Promise<void> } {
  const running = new Map<string, Promise<void>>();
  async function pass(environmentId: string): Promise<void> {
    const knex = options.knexOf(environmentId);
    const advice = await buildIndexAdvice(options.recorder.shapes(environmentId), knex, options.objectOf);
    for (const item of advice) {
      const existing = await introspectSchema(knex, dialectOf(knex), [item.object]);
      const auto = [...(existing.get(item.object)?.indexes.values() ?? [])].filter((i) => i.name.startsWith('osr_auto_'));
      if (auto.length >= options.maxPerObject) continue;
      const started = performance.now();
      try {
        await knex.raw(item.sql);
        options.log.info({ environment: environmentId, object: item.object, columns: item.columns, ms: Math.round(performance.now() - started) }, `autoIndex: built ${item.sql}`);
      } catch (error) {
        options.log.warn({ environment: environmentId, object: item.object, err: (error as Error).message }, `autoIndex: could not build ${item.sql}`);
      }
    }
  }
  return {
    consider(environmentId) {
      const known = running.get(environmentId);
      if (known) return known;
      const run = pass(environmentId).catch((error: unknown) => options.log.warn({ environment: environmentId, err: (error as Error).message }, 'autoIndex: advice failed')).finally(() => running.delete(environmentId));
      running.set(environmentId, run);
      return run;
    },
  };
}
