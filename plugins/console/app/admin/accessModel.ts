/** The permission model's values as the editors hold them (pure, no DOM). */

export const OBJECT_ACTIONS = [
  { key: 'read', label: 'Read' },
  { key: 'create', label: 'Create' },
  { key: 'edit', label: 'Edit' },
  { key: 'delete', label: 'Delete' },
  { key: 'viewAll', label: 'View all' },
  { key: 'modifyAll', label: 'Modify all' },
] as const;

export type ObjectAction = (typeof OBJECT_ACTIONS)[number]['key'];
export type ObjectGrants = Record<string, Partial<Record<ObjectAction, boolean>>>;
export type FieldGrants = Record<string, { read?: boolean; edit?: boolean }>;

/** A field's place in a set: not named (open unless another set names it), named without access, read, read and edit. */
export type FieldLevel = '' | 'none' | 'read' | 'edit';

export const FIELD_LEVELS: Array<{ value: FieldLevel; label: string }> = [
  { value: '', label: 'Not named' },
  { value: 'none', label: 'Named, no access' },
  { value: 'read', label: 'Read' },
  { value: 'edit', label: 'Read and edit' },
];

/** A json column as stored (an object, or its text). */
export function jsonOf<T>(value: unknown, fallback: T): T {
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value) as unknown;
    } catch {
      return fallback;
    }
  }
  return parsed === null || parsed === undefined ? fallback : parsed as T;
}

export function levelOf(fields: FieldGrants, key: string): FieldLevel {
  const grant = fields[key];
  if (!grant) return '';
  if (grant.edit) return 'edit';
  return grant.read ? 'read' : 'none';
}

/** The set's fields with one key at a level ('' removes the key). */
export function withLevel(fields: FieldGrants, key: string, level: FieldLevel): FieldGrants {
  const next = { ...fields };
  if (level === '') delete next[key];
  else next[key] = level === 'edit' ? { read: true, edit: true } : level === 'read' ? { read: true } : { read: false, edit: false };
  return next;
}

/** The object grants with one action on or off; an object left with nothing granted is dropped. */
export function withAction(objects: ObjectGrants, object: string, action: ObjectAction, on: boolean): ObjectGrants {
  const next = { ...objects, [object]: { ...objects[object] } };
  if (on) next[object]![action] = true;
  else delete next[object]![action];
  if (Object.keys(next[object]!).length === 0) delete next[object];
  return next;
}

/** `ai:chat, email:send` -> the keys; blanks dropped, each once. */
export function keysOf(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).map((k) => k.trim()).filter(Boolean))];
}
