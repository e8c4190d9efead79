import type { FieldDoc } from '../../meta/api/viewDocs.ts';

/**
 * The ids a page of rows references, by referenced object: each lookup column's values, without
 * duplicates, so that a page costs one read per referenced object whatever its number of rows or
 * of lookup columns pointing to the same object.
 */
export function lookupIds(rows: ReadonlyArray<Record<string, unknown>>, columns: readonly string[], fields: Record<string, FieldDoc>): Map<string, string[]> {
  const out = new Map<string, Set<string>>();
  for (const column of columns) {
    const field = fields[column];
    if (field?.type !== 'lookup' || !field.reference) continue;
    let ids = out.get(field.reference);
    if (!ids) out.set(field.reference, (ids = new Set()));
    for (const row of rows) {
      const value = row[column];
      if (value !== null && value !== undefined && value !== '') ids.add(String(value));
    }
  }
  const answer = new Map<string, string[]>();
  for (const [object, ids] of out) if (ids.size > 0) answer.set(object, [...ids]);
  return answer;
}

/** `ids` in slices of at most `size` (the referenced object's page size caps a list's answer). */
export function chunk<T>(ids: readonly T[], size: number): T[][] {
  const step = Math.max(1, Math.floor(size));
  const out: T[][] = [];
  for (let i = 0; i < ids.length; i += step) out.push(ids.slice(i, i + step));
  return out;
}
