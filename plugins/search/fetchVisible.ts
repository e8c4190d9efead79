import type { DataContext, DataEngine, DataRecord } from '../../capabilities/dataEngine.ts';
import type { MetadataRegistry } from '../../capabilities/metadataRegistry.ts';
import type { Candidate } from './indexStore.ts';

/** Ids per query: the engine caps `$in` at 1000 values and a page at the object's maxPageSize. */
const MAX_IDS = 500;

/**
 * The candidates' records as the caller may read them, keyed `object\0id`. They are read through
 * the engine's query with the caller's context, so its hooks and security decide: a record the
 * caller may not read is simply absent, and so are the fields it may not see.
 */
export async function fetchVisible(engine: DataEngine, metadata: MetadataRegistry, candidates: readonly Candidate[], ctx: DataContext): Promise<Map<string, DataRecord>> {
  const byObject = new Map<string, string[]>();
  for (const c of candidates) {
    const ids = byObject.get(c.object);
    if (ids) ids.push(c.id);
    else byObject.set(c.object, [c.id]);
  }
  const found = new Map<string, DataRecord>();
  for (const [object, ids] of byObject) {
    const size = Math.min(MAX_IDS, metadata.object(object)?.maxPageSize ?? MAX_IDS);
    for (let i = 0; i < ids.length; i += size) {
      const chunk = ids.slice(i, i + size);
      const page = await engine.query(object, { where: { id: { $in: chunk } }, limit: chunk.length }, ctx, { total: false });
      for (const record of page.items) found.set(`${object}\u0000${String(record.id)}`, record);
    }
  }
  return found;
}
