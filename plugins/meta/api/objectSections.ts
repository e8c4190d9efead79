import { checkFieldPatch, checkView } from '../../../metadata/checkObjectPatch.ts';
import { describeIssues } from '../../../metadata/describeIssues.ts';
import type { MetadataProblem } from '../../../metadata/metadataError.ts';
import { SNAKE_CASE } from '../../../metadata/names.ts';
import { OBJECT_SECTIONS, type ObjectSection } from '../../../metadata/patchSchema.ts';
import type { FieldPatch, LabelsPatch, ObjectPatch, ResolvedObject, ViewDefinition } from '../../../metadata/types.ts';
import type { Doc, ObjectDoc } from './describeItems.ts';

/** Where a sectioned entry lives: the object it belongs to and, for fields and views, the key inside it. */
export interface EntryAddress {
  object: string;
  key: string | null;
}

export const SECTION_NAMES: Record<ObjectSection, string> = {
  labels: '<object>, e.g. account',
  fields: '<object>.<field>, e.g. account.industry',
  views: '<object>.<view>, e.g. account.key_accounts',
};

/** `account` (labels) or `account.industry` (fields, views); null when the name does not fit the section. */
export function parseEntry(section: ObjectSection, name: string): EntryAddress | null {
  if (section === 'labels') return SNAKE_CASE.test(name) ? { object: name, key: null } : null;
  const parts = name.split('.');
  if (parts.length !== 2 || !parts.every((p) => SNAKE_CASE.test(p))) return null;
  return { object: parts[0]!, key: parts[1]! };
}

/** The part of a patch one entry addresses. */
export function entryOf(patch: ObjectPatch | null, section: ObjectSection, key: string | null): unknown {
  if (!patch) return null;
  if (section === 'labels') return patch.labels ?? null;
  return (section === 'fields' ? patch.fields?.[key!] : patch.views?.[key!]) ?? null;
}

/** A patch holding one entry: how a stored overlay row joins the others. */
export function patchOf(section: ObjectSection, key: string | null, value: unknown): ObjectPatch {
  if (section === 'labels') return { labels: value as LabelsPatch };
  if (section === 'fields') return { fields: { [key!]: value as FieldPatch } };
  return { views: { [key!]: value as ViewDefinition } };
}

/** The entry in a described object (base or effective), or null. */
export function entryIn(doc: ObjectDoc, section: ObjectSection, key: string | null): Doc | null {
  if (section === 'labels') {
    const labels: Doc = { label: doc.label, pluralLabel: doc.pluralLabel };
    if (doc.description !== undefined) labels.description = doc.description;
    return labels;
  }
  if (section === 'fields') return doc.fields[key!] ?? null;
  return (doc.views[key!] as Doc | undefined) ?? null;
}

/**
 * Checks an overlay body as files are checked: the section's zod schema, then the rules that need
 * the object (the field exists, the options exist, the view's columns exist and its `where` is a
 * condition the data API takes; `objects` resolves what a query names). Paths start at
 * `body` for the body, `name` for the entry named in the URL.
 */
export function validateEntry(object: ResolvedObject, section: ObjectSection, key: string | null, body: unknown, objects: ReadonlyMap<string, ResolvedObject>): { value: unknown } | { problems: MetadataProblem[] } {
  const schema = OBJECT_SECTIONS[section];
  const parsed = schema.safeParse(body);
  const at = (path: string) => (path === '' ? 'body' : `body.${path}`);
  if (!parsed.success) {
    return { problems: describeIssues(schema, body, parsed.error.issues).map((p) => ({ path: at(p.path), reason: p.reason })) };
  }
  const value = parsed.data;
  if (section !== 'views' && Object.keys(value).length === 0) {
    return { problems: [{ path: 'body', reason: `set at least one of ${Object.keys(schema.shape).join(', ')}` }] };
  }
  const semantic = section === 'fields' ? checkFieldPatch(object, key!, value as FieldPatch, '')
    : section === 'views' ? checkView(object, key!, value as ViewDefinition, '', objects) : [];
  if (semantic.length > 0) return { problems: semantic.map((p) => ({ path: p.path === 'name' ? 'name' : at(p.path), reason: p.reason })) };
  return { value };
}
