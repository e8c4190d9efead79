import { href } from '../route.ts';
import type { LookupNames } from '../useLookupNames.ts';

/**
 * A lookup's value as a cell shows it: the referenced record's name linking to its page, or its id
 * when the user may not read the record (or its name): the id is the field's own value, which the
 * user may read, so nothing of the referenced record shows.
 */
export function LookupValue({ object, id, names }: { object: string; id: string; names: LookupNames | null }) {
  if (!names) return <span data-lookup="loading">{id}</span>;
  const name = names.get(object)?.get(id);
  if (name === undefined) return <span class="muted" data-lookup="hidden" title="Not visible to you">{id}</span>;
  return <a data-lookup="name" href={href(`/records/${object}/${encodeURIComponent(id)}`)}>{name}</a>;
}
