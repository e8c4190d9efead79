import type { FieldDoc } from '../../meta/api/viewDocs.ts';

/** A lookup pointing to an object: records of `object` whose `field` holds the id of a record of it. */
export interface RelatedSource {
  object: string;
  field: string;
}

/** What `/meta/object/:name/references` answers per item. */
export interface Reference {
  type: string;
  name: string;
  path: string;
}

/**
 * The lookups the metadata names as pointing to an object (`fields.<field>.reference` of an
 * object), kept only on objects the user may list (`listable`: those with a view for it). The
 * references are the schema, shown to everyone: whether the user may read each field is decided
 * afterwards, from the view of its object (readableSource).
 */
export function referencingLookups(references: readonly Reference[], listable: ReadonlySet<string>): RelatedSource[] {
  const out: RelatedSource[] = [];
  for (const ref of references) {
    const m = /^fields\.([a-z][a-z0-9_]*)\.reference$/.exec(ref.path);
    if (ref.type !== 'object' || !m || !listable.has(ref.name)) continue;
    if (!out.some((s) => s.object === ref.name && s.field === m[1])) out.push({ object: ref.name, field: m[1]! });
  }
  return out;
}

/**
 * Whether the user may read the lookup: its object's view for the user (only the fields it may
 * read) holds the field, still a lookup to `target`.
 */
export function readableSource(source: RelatedSource, fields: Record<string, FieldDoc>, target: string): boolean {
  const field = fields[source.field];
  return field?.type === 'lookup' && field.reference === target;
}
