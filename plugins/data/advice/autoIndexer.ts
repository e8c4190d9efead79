import type { Knex } from 'knex';
import type { ResolvedObject } from '../../../metadata/types.ts';
import { dialectOf } from '../sql/dialect.ts';
import { introspectSchema } from '../sql/introspectSchema.ts';
import { recordAutoIndex } from './autoIndexRecord.ts';
import type { AutoIndexUse } from './autoIndexUse.ts';
import { buildIndexAdvice } from './buildIndexAdvice.ts';
import type { SlowQueryRecorder } from './slowQueryRecorder.ts';

export interface AutoIndexerOptions {
  recorder: SlowQueryRecorder;
  knexOf(environmentId: string): Knex;
  objectOf(name: string): ResolvedObject | undefined;
  /** Automatic indexes one object may hold (`plugins.data.autoIndexMax`). */
  maxPerObject: number;
  /** Where each built index is watched for use (autoIndexSweep.ts drops those left unused). */
  use: AutoIndexUse;
  log: { info(data: object, message: string): void; warn(data: object, message: string): void };
}

/**
 * `plugins.data.autoIndex`: after a slow read, the advised indexes (buildIndexAdvice.ts) are built,
 * at most `maxPerObject` `osr_auto_` indexes per object, one pass per environment at a time
 * (PostgreSQL: `create index concurrently`, outside any transaction, so writes go on). Each one
 * built is recorded in `osr_auto_index` (autoIndexRecord.ts), the only indexes ever dropped as unused.
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
        const name = indexNameOf(item.sql);
        if (name !== null) {
          await recordAutoIndex(knex, { name, object: item.object, columns: item.columns }, Date.now());
          options.use.watch(environmentId, { name, object: item.object, columns: item.columns });
        }
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

/** The index name of an advised `create index [concurrently] "name" on ...` statement. */
function indexNameOf(sql: string): string | null {
  const match = /^create index(?: concurrently)? "((?:[^"]|"")+)" on /.exec(sql);
  return match ? match[1]!.replace(/""/g, '"') : null;
}
