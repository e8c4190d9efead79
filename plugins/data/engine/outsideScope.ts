import type { DataRecord } from '../../../capabilities/dataEngine.ts';
import type { ResolvedObject } from '../../../metadata/types.ts';
import { conditionOnRecord } from '../access/conditionOnRecord.ts';
import type { Condition, ScopeFilter } from '../query/types.ts';

/**
 * Whether a record (as a system read shows it) is certainly outside a reader's scope of its object
 * and the reader's where, from its own values (conditionOnRecord.ts): false whenever that is not
 * certain, so that the reader's own read decides.
 */
export function outsideScope(object: ResolvedObject, record: DataRecord, scopeFilter: ScopeFilter, where: Condition | null): boolean {
  const scope = scopeFilter(object);
  const parts = where ? (scope ? [scope, where] : [where]) : scope ? [scope] : [];
  if (parts.length === 0) return false;
  return conditionOnRecord(parts.length === 1 ? parts[0]! : { kind: 'and', items: parts }, record) === false;
}
