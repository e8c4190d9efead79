import type { AccessGrants } from '../../capabilities/accessGrants.ts';
import type { DataContext, DataEngine } from '../../capabilities/dataEngine.ts';
import type { MetadataRegistry } from '../../capabilities/metadataRegistry.ts';
import type { DatasetUse } from '../../metadata/datasetSchema.ts';
import { compileDatasetUse, runQuery, type QueryRun } from './runQuery.ts';

/** Answers remembered for datasets that declare `freshnessMs`, at most (the oldest go first). */
const MAX_REMEMBERED = 500;

/** An answer remembered, with when it was read and the access stamp taken before the read. */
interface Remembered {
  at: number;
  stamp: string | null;
  run: QueryRun;
}

/**
 * Runs a use of a declared dataset as the caller, through runQuery and so the data engine's
 * secured pipeline, its measures labelled as declared. A dataset with `freshnessMs` may answer from
 * memory for that long after the same caller (the same principal: user, positions, permission sets,
 * scopes) ran the same use, whatever was written meanwhile; memory is per process and never shared
 * between callers. Never from memory: a request that carries a read-your-writes token (it asks for
 * the state after its write), and an answer read before what decides access in its environment
 * changed (a permission set, position, assignment, share or sharing rule: `accessStamp`), or while
 * such changes made elsewhere may be unheard.
 */
export function createDatasetRunner(engine: DataEngine, metadata: MetadataRegistry, grants?: Pick<AccessGrants, 'accessStamp'>) {
  const remembered = new Map<string, Remembered>();
  return {
    async run(use: DatasetUse, ctx: DataContext): Promise<QueryRun> {
      const { query, labels } = compileDatasetUse(metadata, use);
      const freshness = metadata.apps().flatMap((app) => app.datasets ?? []).find((d) => d.name === use.dataset)?.freshnessMs ?? 0;
      if (freshness <= 0 || ctx.system) return runQuery(engine, metadata, query, ctx, labels);
      const key = JSON.stringify([ctx.environmentId, ctx.principal, query]);
      // Taken before the read: a change of access while it runs makes what it read stale.
      const stamp = grants ? grants.accessStamp(ctx.environmentId) : '';
      const hit = remembered.get(key);
      if (hit && ctx.writeToken === undefined && stamp !== null && hit.stamp === stamp && Date.now() - hit.at < freshness) return hit.run;
      remembered.delete(key);
      const run = await runQuery(engine, metadata, query, ctx, labels);
      if (stamp === null) return run;
      remembered.set(key, { at: Date.now(), stamp, run });
      if (remembered.size > MAX_REMEMBERED) remembered.delete(remembered.keys().next().value!);
      return run;
    },
  };
}

export type DatasetRunner = ReturnType<typeof createDatasetRunner>;
