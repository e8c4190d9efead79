import { useEffect, useState } from 'preact/hooks';
import { namesOf } from './useLookupNames.ts';

export interface RecordRef { object: string; id: string }

/**
 * The names of records of any objects (keyed `object:id`), read as the user by `namesOf`: one list
 * request per object. A record the user may not read, or of an object without a name field, has no
 * entry (it is shown by its id).
 */
export function useRecordNames(refs: readonly RecordRef[]): Map<string, string> {
  const [names, setNames] = useState<Map<string, string>>(new Map());
  const key = refs.map((r) => `${r.object}:${r.id}`).sort().join(',');
  useEffect(() => {
    let live = true;
    const byObject = new Map<string, Set<string>>();
    for (const r of refs) byObject.set(r.object, (byObject.get(r.object) ?? new Set()).add(r.id));
    void Promise.all([...byObject].map(async ([object, ids]) => [...(await namesOf(object, [...ids]))].map(([id, name]) => [`${object}:${id}`, name] as [string, string])))
      .then((lists) => { if (live) setNames(new Map(lists.flat())); });
    return () => { live = false; };
  }, [key]);
  return names;
}
