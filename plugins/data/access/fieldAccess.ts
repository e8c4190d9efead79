import type { Grants } from './effectiveGrants.ts';

/**
 * Field-level security. A field is open (readable and editable wherever its object is) until a
 * permission set names it; from then on only users holding a set that grants it read or edit it.
 */
export interface FieldAccess {
  canRead(object: string, field: string): boolean;
  canEdit(object: string, field: string): boolean;
  /** Unreadable fields of an object, for stripping them from results. */
  hidden(object: string, fields: Iterable<string>): string[];
}

export function fieldAccess(grants: Grants, controlled: ReadonlySet<string>): FieldAccess {
  const canRead = (object: string, field: string) => {
    const key = `${object}.${field}`;
    return grants.isAdmin || !controlled.has(key) || grants.fields.get(key)?.read === true;
  };
  const canEdit = (object: string, field: string) => {
    const key = `${object}.${field}`;
    return grants.isAdmin || !controlled.has(key) || grants.fields.get(key)?.edit === true;
  };
  return {
    canRead,
    canEdit,
    hidden: (object, fields) => [...fields].filter((f) => !canRead(object, f)),
  };
}
