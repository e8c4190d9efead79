import { join } from 'node:path';
import type { CodedError } from '../kernel/errors.ts';
import { suggest } from '../kernel/suggest.ts';
import { describeIssues } from './describeIssues.ts';
import { formDefinitionSchema, type ParsedForm } from './formSchema.ts';
import {
  DEFAULT_FORM_BODY_BYTES, DEFAULT_FORM_RATE_LIMIT, DEFAULT_HONEYPOT, DEFAULT_SUCCESS_MESSAGE,
  type FormFieldDeclaration, type ResolvedForm, type ResolvedFormField,
} from './formTypes.ts';
import { metadataError, type MetadataProblem } from './metadataError.ts';
import { readDeclarationDir } from './readDeclarationDir.ts';
import { SYSTEM_FIELDS, type ResolvedField, type ResolvedObject } from './types.ts';
import { PARSE_ONCE } from '../kernel/parseOnce.ts';

export interface FormSource {
  dir: string;
  app: string;
}

/** Slugs as they appear in /f/<slug>: lowercase words joined by single dashes. */
export const FORM_SLUG = /^[a-z0-9]+(-[a-z0-9]+)*$/;
/** A runAs names a user by email or by id. */
const RUN_AS_EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const RUN_AS_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** Field types a form renders a control for (json has none; formula and autonumber are computed). */
const FORM_FIELD_TYPES = new Set([
  'text', 'textarea', 'email', 'url', 'phone', 'integer', 'number', 'currency', 'percent',
  'boolean', 'date', 'datetime', 'select', 'multiselect', 'lookup',
]);

function fieldProblem(object: ResolvedObject, name: string): string | null {
  if ((SYSTEM_FIELDS as readonly string[]).includes(name)) {
    return name === 'owner_id'
      ? `'owner_id' is the owner field: the server sets it, a form never does`
      : `'${name}' is a system field: the server sets it, a form never does`;
  }
  const field = object.fields[name];
  if (!field) {
    const near = suggest(name, Object.keys(object.fields));
    return `unknown field '${name}' of object '${object.name}'${near ? ` (did you mean '${near}'?)` : `; its fields: ${Object.keys(object.fields).join(', ')}`}`;
  }
  if (field.type === 'formula' || field.type === 'autonumber') return `field '${name}' is a ${field.type}: the engine computes it`;
  if (field.readonly) return `field '${name}' is readonly: no form may write it`;
  if (!FORM_FIELD_TYPES.has(field.type)) return `field '${name}' is a ${field.type} field, which a form has no control for`;
  return null;
}

function optionsOf(field: ResolvedField): Array<{ value: string; label: string }> | null {
  if (field.type !== 'select' && field.type !== 'multiselect') return null;
  return (field.options ?? []).map((o) => (typeof o === 'string' ? { value: o, label: o } : { value: o.value, label: o.label ?? o.value }));
}

function resolveField(field: ResolvedField, declared: FormFieldDeclaration): ResolvedFormField {
  return {
    field: field.name,
    type: field.type,
    label: declared.label ?? field.label,
    help: declared.help ?? field.help ?? null,
    placeholder: declared.placeholder ?? null,
    required: field.required || declared.required === true,
    maxLength: field.maxLength ?? null,
    min: field.min ?? null,
    max: field.max ?? null,
    options: optionsOf(field),
    reference: field.reference ?? null,
  };
}

function resolveForm(file: string, app: string, parsed: ParsedForm, objects: ReadonlyMap<string, ResolvedObject>, problems: MetadataProblem[]): ResolvedForm | null {
  const before = problems.length;
  const object = objects.get(parsed.object);
  if (!object) {
    const near = suggest(parsed.object, [...objects.keys()]);
    problems.push({ path: 'object', reason: `unknown object '${parsed.object}'${near ? ` (did you mean '${near}'?)` : ''}` });
  } else if (object.system && !object.userActions?.create) {
    problems.push({ path: 'object', reason: `object '${object.name}' is owned by the engine: a form cannot create its records` });
  }
  if (parsed.runAs !== undefined && !RUN_AS_EMAIL.test(parsed.runAs) && !RUN_AS_ID.test(parsed.runAs)) {
    problems.push({ path: 'runAs', reason: 'must name a user by email address or by user id' });
  }
  const fields: ResolvedFormField[] = [];
  const seen = new Set<string>();
  parsed.fields.forEach((entry, i) => {
    const declared: FormFieldDeclaration = typeof entry === 'string' ? { field: entry } : entry;
    const at = typeof entry === 'string' ? `fields[${i}]` : `fields[${i}].field`;
    if (!object) return;
    if (seen.has(declared.field)) { problems.push({ path: at, reason: `field '${declared.field}' is listed twice` }); return; }
    seen.add(declared.field);
    const problem = fieldProblem(object, declared.field);
    if (problem) { problems.push({ path: at, reason: problem }); return; }
    const field = object.fields[declared.field]!;
    if (declared.required === false && field.required) {
      problems.push({ path: `fields[${i}].required`, reason: `field '${field.name}' is required by object '${object.name}': a form cannot make it optional` });
      return;
    }
    fields.push(resolveField(field, declared));
  });
  if (object) {
    for (const field of Object.values(object.fields)) {
      if (field.required && field.default === undefined && !seen.has(field.name) && field.type !== 'formula' && field.type !== 'autonumber') {
        problems.push({ path: 'fields', reason: `field '${field.name}' is required by object '${object.name}' and has no default: list it on the form, or no submission could be stored` });
      }
    }
  }
  const honeypot = parsed.honeypot ?? DEFAULT_HONEYPOT;
  if (seen.has(honeypot)) problems.push({ path: parsed.honeypot === undefined ? 'fields' : 'honeypot', reason: `'${honeypot}' is the honeypot input's name and a form field: set honeypot to another name` });
  if (problems.length > before || !object) return null;
  return {
    slug: parsed.slug,
    object: object.name,
    title: parsed.title ?? object.label,
    description: parsed.description ?? null,
    fields,
    allowAnonymous: parsed.sharing?.allowAnonymous === true,
    runAs: parsed.runAs ?? null,
    successMessage: parsed.successMessage ?? DEFAULT_SUCCESS_MESSAGE,
    submitLabel: parsed.submitLabel ?? 'Submit',
    rateLimit: parsed.rateLimit ?? DEFAULT_FORM_RATE_LIMIT,
    honeypot,
    maxBodyBytes: parsed.maxBodyBytes ?? DEFAULT_FORM_BODY_BYTES,
    source: file,
    app,
  };
}

/**
 * Reads forms/<slug>.{json,ts} of every app: schema (unknown keys refused), slugs unique across
 * apps and equal to their file names, the object known, every field a writable field of it (never
 * a system, owner, computed or readonly one). Returns the valid forms by app and every problem.
 */
export async function loadForms(sources: FormSource[], objects: ReadonlyMap<string, ResolvedObject>): Promise<{ forms: Map<string, ResolvedForm[]>; errors: CodedError[] }> {
  const errors: CodedError[] = [];
  const forms = new Map<string, ResolvedForm[]>();
  const declaredIn = new Map<string, string>();
  for (const { dir, app } of sources) {
    const read = await readDeclarationDir(join(dir, 'forms'), 'forms');
    errors.push(...read.errors);
    const loaded: ResolvedForm[] = [];
    for (const { file, stem, ext, value } of read.declarations) {
      const parsed = formDefinitionSchema.safeParse(value, PARSE_ONCE);
      const problems = parsed.success ? [] : describeIssues(formDefinitionSchema, value, parsed.error.issues);
      const slug = (value as { slug?: unknown } | null)?.slug;
      if (typeof slug === 'string') {
        if (!FORM_SLUG.test(slug) || slug.length > 63) problems.push({ path: 'slug', reason: `'${slug.slice(0, 80)}' must be lowercase letters and digits in words joined by single dashes (at most 63)` });
        if (slug !== stem) problems.push({ path: 'slug', reason: `form '${slug}' must be declared in a file named ${slug}${ext}` });
        const other = declaredIn.get(slug);
        if (other) problems.push({ path: 'slug', reason: `form '${slug}' is already declared in ${other}` });
        else declaredIn.set(slug, file);
      }
      const form = parsed.success && problems.length === 0 ? resolveForm(file, app, parsed.data, objects, problems) : null;
      errors.push(...problems.map((p) => metadataError(file, p.path, p.reason)));
      if (form) loaded.push(form);
    }
    forms.set(app, loaded);
  }
  return { forms, errors };
}
