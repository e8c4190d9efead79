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

/** The stored fields a formula field reads (CompiledExpression.reads); undefined for any other field. */
export type FormulaReads = (object: string, field: string) => readonly string[] | undefined;

/**
 * A formula is readable where the formula itself is and every field it reads is: its value
 * would otherwise tell what a hidden field holds (`record.salary * 12`).
 */
export function fieldAccess(grants: Grants, controlled: ReadonlySet<string>, formulaReads: FormulaReads = () => undefined): FieldAccess {
  const own = (object: string, field: string, mode: 'read' | 'edit') => {
    const key = `${object}.${field}`;
    return grants.isAdmin || !controlled.has(key) || grants.fields.get(key)?.[mode] === true;
  };
  const formulas = new Map<string, boolean>();
  const canRead = (object: string, field: string) => {
    if (!own(object, field, 'read')) return false;
    const reads = grants.isAdmin ? undefined : formulaReads(object, field);
    if (!reads) return true;
    const key = `${object}.${field}`;
    let open = formulas.get(key);
    if (open === undefined) formulas.set(key, (open = reads.every((input) => own(object, input, 'read'))));
    return open;
  };
  return {
    canRead,
    canEdit: (object, field) => own(object, field, 'edit'),
    hidden: (object, fields) => [...fields].filter((f) => !canRead(object, f)),
  };
}
