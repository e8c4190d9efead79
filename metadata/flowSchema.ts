import { z } from 'zod';
import { actionInputFieldSchema } from './actionSchema.ts';
import { FLOW_HTTP_METHODS, FLOW_NOTIFY_CHANNELS, FLOW_RECORD_EVENTS, FLOW_RUN_AS, FLOW_STEP_TYPES, FLOW_TYPES } from './flowTypes.ts';

const text = z.string().min(1, 'must be a non-empty string');
const cel = z.string({ error: 'must be a CEL expression (a string); quote text values, e.g. "\'done\'"' }).min(1, 'must not be empty');
const expressions = (what: string) =>
  z.record(z.string(), cel, { error: `must map names to CEL expressions, e.g. { "status": "'done'" } (${what})` });
const int = (min: number, max: number) => z.number().int('must be an integer').min(min, `must be at least ${min}`).max(max, `must be at most ${max}`);

/**
 * One step. One schema for every type (rather than a union) so that an unknown key is reported with
 * the keys a step accepts; which keys suit which type is checked in loadFlows. Nested steps of a
 * branch are checked one by one by the loader (so that their paths are exact).
 */
export const flowStepSchema = z.strictObject({
  id: z.string({ error: (i) => (i.input === undefined ? 'is required: the snake_case step id' : 'must be a string') }),
  type: z.enum(FLOW_STEP_TYPES, { error: `must be one of ${FLOW_STEP_TYPES.join(', ')}` }),
  label: text.optional(),
  object: z.string().optional(),
  recordId: cel.optional(),
  set: expressions('update: the record fields to assign').optional(),
  values: expressions('create: the fields of the new record').optional(),
  where: expressions('query: field equal to the value of the expression').optional(),
  orderBy: z.array(z.strictObject({ field: text, order: z.enum(['asc', 'desc'], { error: 'must be asc or desc' }).optional() })).optional(),
  limit: int(1, 200).optional(),
  when: cel.optional(),
  then: z.array(z.unknown(), { error: 'must be a list of steps' }).optional(),
  else: z.array(z.unknown(), { error: 'must be a list of steps' }).optional(),
  seconds: int(1, 30 * 24 * 3600).optional(),
  until: cel.optional(),
  action: z.string().optional(),
  input: expressions("action: the action's input").optional(),
  to: cel.optional(),
  subject: cel.optional(),
  text: cel.optional(),
  html: cel.optional(),
  channels: z.array(z.enum(FLOW_NOTIFY_CHANNELS, { error: `must be one of ${FLOW_NOTIFY_CHANNELS.join(', ')}` })).min(1, 'must list at least one channel').optional(),
  title: cel.optional(),
  body: cel.optional(),
  link: cel.optional(),
  method: z.enum(FLOW_HTTP_METHODS, { error: `must be one of ${FLOW_HTTP_METHODS.join(', ')}` }).optional(),
  url: cel.optional(),
  headers: expressions('http: request header values').optional(),
  timeoutMs: int(100, 60_000).optional(),
});

export type ParsedFlowStep = z.infer<typeof flowStepSchema>;

const recordStartSchema = z.strictObject({
  object: text,
  on: z.array(z.enum(FLOW_RECORD_EVENTS, { error: `must be one of ${FLOW_RECORD_EVENTS.join(', ')}` })).min(1, 'must list at least one event'),
  when: cel.optional(),
});

const scheduleStartSchema = z.strictObject({
  cron: text,
});

const timeRelativeStartSchema = z.strictObject({
  object: text,
  field: text,
  offsetDays: z.array(int(-3650, 3650)).min(1, 'must list at least one offset').max(20, 'must list at most 20 offsets').optional(),
  withinDays: int(0, 3650).optional(),
});

export const flowStartSchema = z.strictObject({
  record: recordStartSchema.optional(),
  schedule: scheduleStartSchema.optional(),
  timeRelative: timeRelativeStartSchema.optional(),
});

export const flowHookSchema = z.strictObject({
  id: z.string().regex(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/, 'must be snake_case (lowercase letters, digits and single underscores, starting with a letter)').max(63, 'must be at most 63 characters'),
  secretEnv: z.string().regex(/^[A-Z][A-Z0-9_]{0,127}$/, 'must be an environment variable name (uppercase letters, digits and underscores, starting with a letter)'),
});

/** flows/<name>.json. Strict at every level: an unknown key is an error, with its path. */
export const flowDefinitionSchema = z.strictObject({
  name: z.string({ error: (i) => (i.input === undefined ? 'is required: the snake_case flow name' : 'must be a string') }),
  label: text.optional(),
  description: z.string().optional(),
  type: z.enum(FLOW_TYPES, { error: `must be one of ${FLOW_TYPES.join(', ')}` }),
  runAs: z.enum(FLOW_RUN_AS, { error: `must be one of ${FLOW_RUN_AS.join(', ')}` }).optional(),
  input: z.record(z.string(), actionInputFieldSchema, { error: 'must map input names to field declarations' }).optional(),
  start: flowStartSchema.optional(),
  hook: flowHookSchema.optional(),
  steps: z.array(z.unknown(), { error: 'must be a list of steps' }).min(1, 'must hold at least one step'),
});

export type ParsedFlow = z.infer<typeof flowDefinitionSchema>;
