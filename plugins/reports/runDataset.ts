import type { DataContext, DataEngine } from '../../capabilities/dataEngine.ts';
import type { MetadataRegistry } from '../../capabilities/metadataRegistry.ts';
import type { DatasetUse } from '../../metadata/datasetSchema.ts';
import { datasetUseQuery, runQuery, type QueryRun } from './runQuery.ts';

/** Answers remembered for datasets that declare `freshnessMs`, at most (the oldest go first). */
const MAX_REMEMBERED = 500;

/**
 * Runs a use of a declared dataset as the caller, through runQuery and so the data engine's
 * secured pipeline. A dataset with `freshnessMs` may answer from memory for that long after the
 * same caller (the same principal: user, positions, permission sets, scopes) ran the same use,
 * whatever was written meanwhile; memory is per process and never shared between callers.
 */
export function createDatasetRunner(engine: DataEngine, metadata: MetadataRegistry) {
  const remembered = new Map<string, { at: number; run: QueryRun }>();
  return {
    async run(use: DatasetUse, ctx: DataContext): Promise<QueryRun> {
      const query = datasetUseQuery(metadata, use);
      const freshness = metadata.apps().flatMap((app) => app.datasets ?? []).find((d) => d.name === use.dataset)?.freshnessMs ?? 0;
      if (freshness <= 0 || ctx.system) return runQuery(engine, metadata, query, ctx);
      const key = JSON.stringify([ctx.environmentId, ctx.principal, query]);
      const hit = remembered.get(key);
      if (hit && Date.now() - hit.at < freshness) return hit.run;
      const run = await runQuery(engine, metadata, query, ctx);
      remembered.delete(key);
      remembered.set(key, { at: Date.now(), run });
      if (remembered.size > MAX_REMEMBERED) remembered.delete(remembered.keys().next().value!);
      return run;
    },
  };
}

export type DatasetRunner = ReturnType<typeof createDatasetRunner>;
