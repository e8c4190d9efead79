import { useEffect, useState } from 'preact/hooks';
import { api } from './api.ts';
import { objectView } from './catalog.ts';

export interface RecordRef { object: string; id: string }

/**
 * The names of records (their object's name field) as the user may read them: one list call per
 * object (`GET /data/:object?where={"id":{"$in":[...]}}&select=id,<name>`). A record the user may
 * not read, or of an object without a name field, has no entry (it is shown by its id).
 */
export function useRecordNames(refs: readonly RecordRef[]): Map<string, string> {
  const [names, setNames] = useState<Map<string, string>>(new Map());
  const key = refs.map((r) => `${r.object}:${r.id}`).sort().join(',');
  useEffect(() => {
    let live = true;
    const byObject = new Map<string, string[]>();
    for (const r of refs) byObject.set(r.object, [...new Set([...(byObject.get(r.object) ?? []), r.id])]);
    void Promise.all([...byObject].map(async ([object, ids]) => {
      const view = await objectView(object).catch(() => null);
      const field = view?.nameField;
      if (!field) return [] as Array<[string, string]>;
      const page = await api<{ items: Array<Record<string, unknown>> }>(`/data/${encodeURIComponent(object)}`, {
        query: { where: JSON.stringify({ id: { $in: ids.slice(0, 200) } }), select: `id,${field}`, limit: 200 },
      }).catch(() => ({ items: [] }));
      return page.items.flatMap((r) => (r[field] ? [[`${object}:${String(r.id)}`, String(r[field])] as [string, string]] : []));
    })).then((lists) => { if (live) setNames(new Map(lists.flat())); });
    return () => { live = false; };
  }, [key]);
  return names;
}
