import { z } from 'zod';
import { codedError } from '../../kernel/errors.ts';
import { datasetUseSchema } from '../../metadata/datasetSchema.ts';
import { parseZonedCron } from './zonedCron.ts';

/** Recipients of one scheduled delivery, at most. */
export const MAX_RECIPIENTS = 20;
export const DELIVERY_FORMATS = ['csv', 'xlsx', 'pdf', 'json'] as const;
export type DeliveryFormat = (typeof DELIVERY_FORMATS)[number];

/** The structured query a report stores: `object` plus the body of POST /data/:object/query. */
const structuredSchema = z.looseObject({
  object: z.string({ error: 'is required: the name of the object the report reads' }).regex(/^[a-z][a-z0-9_]{0,62}$/, 'must be an object name'),
}).refine((q) => q.cursor === undefined, { message: 'a report runs from its first row: drop cursor', path: ['cursor'] });

/**
 * A report's query: a structured query, or a use of a declared dataset (`dataset`, with the
 * dimensions and measures it shows and extra filters in `where`), told apart by `dataset`.
 */
const querySchema = z.looseObject({}).transform((q, ctx) => {
  const schema = q.dataset !== undefined ? datasetUseSchema : structuredSchema;
  const parsed = schema.safeParse(q);
  if (parsed.success) return parsed.data as Record<string, unknown>;
  for (const issue of parsed.error.issues) {
    if (issue.code === 'unrecognized_keys') for (const key of issue.keys) ctx.addIssue({ code: 'custom', path: [...issue.path, key], message: `unknown key '${key}' of a dataset use (dataset, dimensions, measures, where, orderBy, limit)` });
    else ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
  }
  return z.NEVER;
});

const name = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');
const description = z.string().max(2000, 'must be at most 2000 characters');

export const createReportSchema = z.strictObject({
  name,
  description: description.optional(),
  query: querySchema,
  shared: z.boolean().optional(),
});

export const patchReportSchema = z.strictObject({
  name: name.optional(),
  description: description.nullable().optional(),
  query: querySchema.optional(),
  shared: z.boolean().optional(),
});

export const scheduleSchema = z.strictObject({
  cron: z.string().min(1).max(200),
  timezone: z.string().min(1).max(64).default('UTC'),
  recipients: z.array(z.email({ error: 'must be an email address' }).max(254)).min(1, 'must list at least one address').max(MAX_RECIPIENTS, `at most ${MAX_RECIPIENTS} addresses`),
  format: z.enum(DELIVERY_FORMATS, { error: `must be one of ${DELIVERY_FORMATS.join(', ')}` }).default('csv'),
}).superRefine((s, ctx) => {
  try {
    parseZonedCron(s.cron, s.timezone);
  } catch (error) {
    const message = (error as Error).message;
    ctx.addIssue({ code: 'custom', path: [message.includes('time zone') ? 'timezone' : 'cron'], message });
  }
});

export type CreateReport = z.infer<typeof createReportSchema>;
export type PatchReport = z.infer<typeof patchReportSchema>;
export type Schedule = z.output<typeof scheduleSchema>;

/** A body checked against a schema, or VALIDATION_ERROR with every problem and its path. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  const errors = parsed.error.issues.flatMap((issue) => issue.code === 'unrecognized_keys'
    ? issue.keys.map((key) => ({ path: [...issue.path, key].join('.'), message: `unknown key '${key}'` }))
    : [{ path: issue.path.join('.') || 'body', message: issue.message }]);
  throw codedError('VALIDATION_ERROR', { summary: errors.map((e) => `${e.path} ${e.message}`).join('; '), errors });
}
