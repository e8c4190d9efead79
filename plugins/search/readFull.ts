import type { DataContext, DataEngine, DataRecord } from '../../capabilities/dataEngine.ts';
import type { IndexedObject } from './searchPlan.ts';

/** Engine work in an environment: every record, every field. */
export const systemContext = (environmentId: string): DataContext => ({ environmentId, principal: null, system: true });

/**
 * Records as the index must be written from: read through `engine` (a write hook's: inside the
 * write's transaction) in a system context, so every searchable field is there whoever wrote
 * the record. Keyed by id; an id that is not found is absent.
 */
export async function readFull(engine: DataEngine, indexed: IndexedObject, environmentId: string, ids: readonly string[]): Promise<Map<string, DataRecord>> {
  const select = ['id', ...indexed.fields.map((f) => f.name)];
  const found = new Map<string, DataRecord>();
  for (let i = 0; i < ids.length; i += indexed.pageSize) {
    const chunk = ids.slice(i, i + indexed.pageSize);
    const page = await engine.query(indexed.name, { select, where: { id: { $in: chunk } }, limit: chunk.length }, systemContext(environmentId), { total: false, findHooks: false });
    for (const record of page.items) found.set(String(record.id), record);
  }
  return found;
}
