import { useEffect, useState } from 'preact/hooks';
import { api } from './api.ts';
import { objectView, type FieldDoc } from './catalog.ts';
import { formatValue } from './format.ts';
import { chunk, lookupIds } from './lookupIds.ts';

/** Names of referenced records, by referenced object then id; a record missing from its map was not readable (or has no readable name). */
export type LookupNames = Map<string, Map<string, string>>;

/**
 * The names (display field) of the records a page's lookup columns point to, read in one list
 * request per referenced object (`id` `$in` the page's ids, only the name field selected), as the
 * user: a record it may not read is not in the answer, an object it may not read or whose name
 * field is hidden from it is not asked at all. Null until the page's names are read.
 */
export function useLookupNames(rows: ReadonlyArray<Record<string, unknown>> | null, columns: readonly string[], fields: Record<string, FieldDoc>): LookupNames | null {
  // The names are kept with the ids they were read for: another page's are never shown (a record
  // missing from them would read as hidden from the user), not even before the effect runs.
  const [read, setRead] = useState<{ key: string; names: LookupNames } | null>(null);
  const wanted = rows ? lookupIds(rows, columns, fields) : null;
  const key = wanted ? JSON.stringify([...wanted]) : null;
  useEffect(() => {
    if (!wanted || key === null) return;
    let live = true;
    void Promise.all([...wanted].map(async ([object, ids]) => [object, await namesOf(object, ids)] as const)).then((found) => {
      if (live) setRead({ key, names: new Map(found) });
    });
    return () => { live = false; };
  }, [key]);
  return read && read.key === key ? read.names : null;
}

/** The names of these records of one object the user may read (one list request per page size of ids); the others are left out. */
export async function namesOf(object: string, ids: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  try {
    const view = await objectView(object);
    const nameField = view?.nameField;
    if (!view || !nameField) return out;
    for (const part of chunk(ids, view.maxPageSize)) {
      const page = await api<{ items: Array<Record<string, unknown>> }>(`/data/${object}`, {
        query: { where: JSON.stringify({ id: { $in: part } }), select: `id,${nameField}`, limit: part.length, count: 'none' },
      });
      for (const r of page.items) out.set(String(r.id), formatValue(r[nameField], view.fields[nameField], nameField) || String(r.id));
    }
  } catch {
    // Names are a convenience: without them the cells keep the ids.
  }
  return out;
}
