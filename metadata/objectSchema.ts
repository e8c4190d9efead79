import { z } from 'zod';
import { API_METHODS, SEARCH_WEIGHTS, SHARING_MODELS, type ObjectDefinition } from './types.ts';
import { fieldDefinitionSchema } from './fieldSchema.ts';

export { fieldDefinitionSchema, FIELD_SCHEMAS, FORMULA_TYPES } from './fieldSchema.ts';

const flag = z.boolean();

export const validationRuleSchema = z.strictObject({
  name: z.string({ error: (i) => (i.input === undefined ? 'is required' : 'must be a string') }),
  expression: z.string({ error: (i) => (i.input === undefined ? 'is required: a CEL expression that is true for a valid record' : 'must be a string') }).min(1, 'must not be empty'),
  message: z.string({ error: (i) => (i.input === undefined ? 'is required: the sentence shown when the rule fails' : 'must be a string') }).min(1, 'must not be empty'),
  on: z.array(z.enum(['create', 'update'], { error: "must be 'create' or 'update'" })).min(1, 'must list create, update or both').optional(),
  field: z.string().optional(),
});

export const rowPolicySchema = z.strictObject({
  name: z.string({ error: (i) => (i.input === undefined ? 'is required' : 'must be a string') }).min(1, 'must not be empty'),
  condition: z.string({ error: (i) => (i.input === undefined ? 'is required: a CEL condition over record and user' : 'must be a string') }).min(1, 'must not be empty'),
  access: z.enum(['read', 'edit'], { error: "must be 'read' or 'edit'" }),
});

const searchWeight = z.literal(SEARCH_WEIGHTS, { error: 'must be a weight: 1, 2, 3 or 4 (4 ranks highest)' });

export const objectSearchSchema = z.strictObject({
  weights: z.record(z.string(), searchWeight, { error: 'must map searchable fields to weights, e.g. { "name": 3 }' }).optional(),
});

export const objectIndexSchema = z.strictObject({
  fields: z.array(z.string()).min(1, 'must list at least one field'),
  unique: flag.optional(),
});

/**
 * An object as an author declares it. Strict at every level: an unknown key is an error, because a
 * misspelt flag that is silently ignored is declared-but-unenforced metadata.
 * Cross-field rules (names, references inside the object) live in checkObjectSemantics.ts.
 */
export const objectDefinitionSchema = z.strictObject({
  name: z.string({ error: (i) => (i.input === undefined ? 'is required: the snake_case object name' : 'must be a string') }),
  label: z.string().min(1).optional(),
  pluralLabel: z.string().min(1).optional(),
  description: z.string().optional(),
  fields: z.record(z.string(), fieldDefinitionSchema, { error: (i) => (i.input === undefined ? 'is required: declare at least one field' : 'must be an object of field declarations') }),
  apiEnabled: flag.optional(),
  apiMethods: z.array(z.enum(API_METHODS, { error: `must be one of ${API_METHODS.join(', ')}` })).optional(),
  maxPageSize: z.number().int('must be an integer').min(1, 'must be at least 1').max(10_000, 'must be at most 10000').optional(),
  sharingModel: z.enum(SHARING_MODELS, { error: `must be one of ${SHARING_MODELS.join(', ')}` }).optional(),
  owner: flag.optional(),
  enable: z.strictObject({ activities: flag.optional(), feeds: flag.optional(), files: flag.optional(), trackHistory: flag.optional(), trash: flag.optional() }).optional(),
  userActions: z.strictObject({ create: flag.optional(), update: flag.optional(), delete: flag.optional() }).optional(),
  validationRules: z.array(validationRuleSchema).optional(),
  policies: z.array(rowPolicySchema).optional(),
  indexes: z.array(objectIndexSchema).optional(),
  nameField: z.string().optional(),
  search: objectSearchSchema.optional(),
});

export type ParsedObjectDefinition = z.infer<typeof objectDefinitionSchema>;

/** Compile-time proof that what the schema accepts is an ObjectDefinition. */
export function asObjectDefinition(parsed: ParsedObjectDefinition): ObjectDefinition {
  return parsed;
}
