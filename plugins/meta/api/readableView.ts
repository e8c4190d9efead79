import type { Principal } from '../../../capabilities/authSession.ts';
import { SYSTEM_FIELDS, type ViewDefinition } from '../../../metadata/types.ts';

/** Writing metadata needs this key (metaRoutes.ts); its holders and admins author views. */
const AUTHOR_PERMISSION = 'metadata:write';

/** Field names a condition of the structured query names. */
export function fieldsOf(condition: unknown, out: Set<string> = new Set(), depth = 0): Set<string> {
  if (depth > 32 || typeof condition !== 'object' || condition === null) return out;
  if (Array.isArray(condition)) {
    for (const c of condition) fieldsOf(c, out, depth + 1);
    return out;
  }
  for (const [key, value] of Object.entries(condition)) {
    if (key.startsWith('$')) fieldsOf(value, out, depth + 1);
    else out.add(key);
  }
  return out;
}

/** Whether a caller may read a field a view names: a readable declared field, or a system field. */
export function fieldReader(readable: ReadonlySet<string>): (field: string) => boolean {
  return (field) => readable.has(field) || (SYSTEM_FIELDS as readonly string[]).includes(field);
}

/**
 * A view definition as one caller may see it, or null when it may not use it: a `where` naming a
 * field the caller may not read makes the view unusable (its query would be refused, and its
 * condition tells something about the field), so it is not shown at all; columns, sort nodes and
 * form fields it may not read are left out (a view left without a column shows `id`, a form
 * section without a field is dropped).
 */
export function readableView(definition: ViewDefinition, can: (field: string) => boolean): ViewDefinition | null {
  if ([...fieldsOf(definition.where)].some((f) => !can(f))) return null;
  const columns = definition.columns.filter(can);
  const sections = definition.form?.sections.map((s) => ({ ...s, fields: s.fields.filter(can) })).filter((s) => s.fields.length > 0);
  const { form: _form, orderBy, ...rest } = definition;
  return {
    ...rest,
    columns: columns.length > 0 ? columns : ['id'],
    ...(orderBy ? { orderBy: orderBy.filter((node) => can(node.field)) } : {}),
    ...(sections && sections.length > 0 ? { form: { sections } } : {}),
  };
}

/** Views by key (an object's `views`, a patch's) without those the caller may not use, each as it may see it. */
export function readableViews(views: Record<string, unknown>, keep: (definition: ViewDefinition) => ViewDefinition | null): Record<string, ViewDefinition> {
  return Object.fromEntries(Object.entries(views).flatMap(([key, definition]) => {
    const seen = keep(definition as ViewDefinition);
    return seen ? [[key, seen] as const] : [];
  }));
}

/** Admins and holders of `metadata:write` see every view as declared: they author them. */
export function seesEveryView(principal: Principal | null): boolean {
  return principal !== null && (principal.isAdmin || principal.permissions.includes(AUTHOR_PERMISSION));
}
