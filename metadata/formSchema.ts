import { z } from 'zod';

const text = z.string().min(1, 'must be a non-empty string');

export const formFieldSchema = z.strictObject({
  field: z.string({ error: (i) => (i.input === undefined ? 'is required: the name of a field of the form\'s object' : 'must be a string') }),
  label: text.max(200, 'must be at most 200 characters').optional(),
  help: text.max(1000, 'must be at most 1000 characters').optional(),
  required: z.boolean().optional(),
  placeholder: text.max(200, 'must be at most 200 characters').optional(),
});

/** forms/<slug>.json. Strict at every level: an unknown key is an error, with its path. */
export const formDefinitionSchema = z.strictObject({
  slug: z.string({ error: (i) => (i.input === undefined ? 'is required: the form\'s slug, as in /f/<slug>' : 'must be a string') }),
  object: z.string({ error: (i) => (i.input === undefined ? 'is required: the object whose records the form creates' : 'must be a string') }),
  title: text.max(200, 'must be at most 200 characters').optional(),
  description: text.max(2000, 'must be at most 2000 characters').optional(),
  fields: z.array(z.union([z.string(), formFieldSchema], { error: 'must be a field name or { "field", "label", "help", "required", "placeholder" }' }), { error: 'must be an array of field names or field objects' })
    .min(1, 'must list at least one field')
    .max(100, 'must list at most 100 fields'),
  sharing: z.strictObject({ allowAnonymous: z.boolean().optional() }).optional(),
  runAs: text.max(320, 'must be at most 320 characters').optional(),
  successMessage: text.max(1000, 'must be at most 1000 characters').optional(),
  submitLabel: text.max(100, 'must be at most 100 characters').optional(),
  rateLimit: z.strictObject({
    max: z.number().int('must be an integer').min(1, 'must be at least 1').max(100_000, 'must be at most 100000'),
    windowSeconds: z.number().int('must be an integer').min(1, 'must be at least 1').max(86_400, 'must be at most 86400'),
  }).optional(),
  honeypot: z.string().regex(/^[a-z][a-z0-9_]{0,62}$/, 'must be an input name: lowercase letters, digits and underscores, starting with a letter').optional(),
  maxBodyBytes: z.number().int('must be an integer').min(1024, 'must be at least 1024').max(1_048_576, 'must be at most 1048576').optional(),
});

export type ParsedForm = z.infer<typeof formDefinitionSchema>;
