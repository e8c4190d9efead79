import { z } from 'zod';
import type { FieldPatch, LabelsPatch, ObjectPatch, ViewDefinition, ViewForm } from './types.ts';

const text = z.string().min(1, 'must be a non-empty string');

/** Section `labels`: the object's own texts. */
export const labelsPatchSchema = z.strictObject({
  label: text.optional(),
  pluralLabel: text.optional(),
  description: z.string().optional(),
});

/** Section `fields`: texts of one declared field. Its type, options and constraints are not patchable. */
export const fieldPatchSchema = z.strictObject({
  label: text.optional(),
  help: z.string().optional(),
  options: z.record(z.string(), text, { error: 'must be an object of option value -> label' }).optional(),
});

/** A record form's layout: sections of fields. */
export const viewFormSchema = z.strictObject({
  sections: z.array(z.strictObject({
    label: z.string({ error: (i) => (i.input === undefined ? 'is required: the heading of the section' : 'must be a string') }).min(1, 'must be a non-empty string'),
    fields: z.array(z.string(), { error: (i) => (i.input === undefined ? 'is required: the fields of the section, in order' : 'must be an array of field names') })
      .min(1, 'must list at least one field').max(100, 'must list at most 100 fields'),
  }), { error: (i) => (i.input === undefined ? 'is required: a list of { label, fields }' : 'must be an array of sections') }).min(1, 'must hold at least one section').max(20, 'must hold at most 20 sections'),
});

/** Section `views` (and the body of views/<name>.json, with its `object`): a list view. */
export const viewDefinitionSchema = z.strictObject({
  label: z.string({ error: (i) => (i.input === undefined ? 'is required: the name shown for the view' : 'must be a string') }).min(1, 'must be a non-empty string'),
  description: z.string().optional(),
  columns: z.array(z.string(), { error: (i) => (i.input === undefined ? 'is required: the fields shown, in order' : 'must be an array of field names') })
    .min(1, 'must list at least one field').max(50, 'must list at most 50 fields'),
  orderBy: z.array(z.strictObject({
    field: z.string({ error: 'is required: a field name' }),
    order: z.enum(['asc', 'desc'], { error: "must be 'asc' or 'desc'" }),
  })).max(5, 'must hold at most 5 sort nodes').optional(),
  where: z.record(z.string(), z.unknown(), { error: 'must be a filter condition of the structured query (a JSON object)' }).optional(),
  pageSize: z.number().int('must be an integer').min(1, 'must be at least 1').max(200, 'must be at most 200').optional(),
  form: viewFormSchema.optional(),
  default: z.boolean({ error: 'must be true or false' }).optional(),
});

/** views/<name>.json: a view names its object; its name is the file's. */
export const viewFileSchema = viewDefinitionSchema.extend({
  object: z.string({ error: (i) => (i.input === undefined ? 'is required: the object the view lists' : 'must be a string') }).min(1, 'must be a non-empty string'),
});

/** Compile-time proof that the schema accepts exactly the view type. */
export function asViewDefinition(parsed: z.infer<typeof viewDefinitionSchema>): ViewDefinition {
  const form: ViewForm | undefined = parsed.form;
  return { ...parsed, ...(form ? { form } : {}) };
}

/** overrides/objects/<name>.json: a package's changes to an object of another app, by section. */
export const objectPatchSchema = z.strictObject({
  labels: labelsPatchSchema.optional(),
  fields: z.record(z.string(), fieldPatchSchema).optional(),
  views: z.record(z.string(), viewDefinitionSchema).optional(),
});

/** The sections of an object that packages and overlays may change, and the schema of one entry. */
export const OBJECT_SECTIONS = {
  labels: labelsPatchSchema,
  fields: fieldPatchSchema,
  views: viewDefinitionSchema,
} as const;

export type ObjectSection = keyof typeof OBJECT_SECTIONS;

export function isObjectSection(value: string): value is ObjectSection {
  return Object.hasOwn(OBJECT_SECTIONS, value);
}

/** Compile-time proof that the schemas accept exactly the patch types. */
export function asObjectPatch(parsed: z.infer<typeof objectPatchSchema>): ObjectPatch {
  const labels: LabelsPatch | undefined = parsed.labels;
  const fields: Record<string, FieldPatch> | undefined = parsed.fields;
  const views: Record<string, ViewDefinition> | undefined = parsed.views;
  return { ...(labels ? { labels } : {}), ...(fields ? { fields } : {}), ...(views ? { views } : {}) };
}
