import { queryProblems } from './checkStructuredQuery.ts';
import { nameProblem } from './names.ts';
import type { MetadataProblem } from './metadataError.ts';
import { SYSTEM_FIELDS, type FieldPatch, type ObjectPatch, type ResolvedObject, type ViewDefinition } from './types.ts';

const CHOICE_TYPES = new Set(['select', 'multiselect']);
const NOT_SORTABLE = new Set(['json', 'multiselect', 'formula']);

/** Columns a view may show: declared fields and the system fields of the object. */
function columnsOf(object: ResolvedObject): Set<string> {
  return new Set([...Object.keys(object.fields), ...SYSTEM_FIELDS.filter((f) => object.owner || f !== 'owner_id')]);
}

const declared = (object: ResolvedObject) => Object.keys(object.fields).join(', ');

/**
 * A patch to a declared field: the field must exist (a patch never adds a field: that is a schema
 * change) and option labels must name existing values of a select or multiselect.
 */
export function checkFieldPatch(object: ResolvedObject, field: string, patch: FieldPatch, at: string): MetadataProblem[] {
  const problems: MetadataProblem[] = [];
  const target = object.fields[field];
  if (!target) {
    return [{ path: at || 'name', reason: `'${field}' is not a declared field of ${object.name} (declared: ${declared(object)}); adding a field needs a schema change, declare it in the object's file` }];
  }
  if (patch.options) {
    if (!CHOICE_TYPES.has(target.type)) problems.push({ path: `${at}${at ? '.' : ''}options`, reason: `'${field}' is a ${target.type} field; option labels apply to select and multiselect fields` });
    else {
      for (const value of Object.keys(patch.options)) {
        if (!target.optionValues?.includes(value)) {
          problems.push({ path: `${at}${at ? '.' : ''}options.${value}`, reason: `'${value}' is not an option of ${object.name}.${field} (options: ${(target.optionValues ?? []).join(', ')}); only labels of existing options change` });
        }
      }
    }
  }
  return problems;
}

/**
 * A view: its name, columns, sort fields and form fields must fit the object, and its `where` is a
 * condition the data API takes (checked by the engine's own query parser: fields, operators and
 * values), since the view's list sends it as is.
 */
export function checkView(object: ResolvedObject, view: string, definition: ViewDefinition, at: string, objects: ReadonlyMap<string, ResolvedObject>): MetadataProblem[] {
  const problems: MetadataProblem[] = [];
  const prefix = at ? `${at}.` : '';
  const nameIssue = nameProblem(view);
  if (nameIssue) problems.push({ path: at || 'name', reason: `view ${nameIssue}` });
  const columns = columnsOf(object);
  definition.columns.forEach((column, i) => {
    if (!columns.has(column)) problems.push({ path: `${prefix}columns[${i}]`, reason: `'${column}' is not a field of ${object.name}` });
  });
  definition.orderBy?.forEach((node, i) => {
    if (!columns.has(node.field)) problems.push({ path: `${prefix}orderBy[${i}].field`, reason: `'${node.field}' is not a field of ${object.name}` });
    else if (NOT_SORTABLE.has(object.fields[node.field]?.type ?? '')) problems.push({ path: `${prefix}orderBy[${i}].field`, reason: `'${node.field}' is a ${object.fields[node.field]!.type} field, which cannot be sorted on` });
  });
  if (definition.where) problems.push(...queryProblems({ where: definition.where }, object, at, objects));
  const placed = new Set<string>();
  definition.form?.sections.forEach((section, s) => section.fields.forEach((field, i) => {
    const at = `${prefix}form.sections[${s}].fields[${i}]`;
    if (!object.fields[field]) problems.push({ path: at, reason: `'${field}' is not a declared field of ${object.name} (declared: ${declared(object)})` });
    else if (placed.has(field)) problems.push({ path: at, reason: `'${field}' is placed twice in the form` });
    placed.add(field);
  }));
  return problems;
}

/** Every problem of a whole object patch (a package override file), paths from the file's root. */
export function checkObjectPatch(object: ResolvedObject, patch: ObjectPatch, objects: ReadonlyMap<string, ResolvedObject>): MetadataProblem[] {
  const problems: MetadataProblem[] = [];
  for (const [field, fieldPatch] of Object.entries(patch.fields ?? {})) problems.push(...checkFieldPatch(object, field, fieldPatch, `fields.${field}`));
  for (const [view, definition] of Object.entries(patch.views ?? {})) problems.push(...checkView(object, view, definition, `views.${view}`, objects));
  return problems;
}
