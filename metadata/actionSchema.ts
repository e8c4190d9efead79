import { z } from 'zod';
import { PERMISSION_KEY } from '../capabilities/holdsPermission.ts';
import { ACTION_INPUT_TYPES, ACTION_RUN_TYPES } from './actionTypes.ts';

const text = z.string().min(1, 'must be a non-empty string');
const expressions = (what: string) =>
  z.record(z.string(), z.string({ error: 'must be a CEL expression (a string); quote text values, e.g. "\'done\'"' }).min(1, 'must not be empty'),
    { error: `must map field names to CEL expressions, e.g. { "status": "'done'" } (${what})` });

export const actionInputFieldSchema = z.strictObject({
  type: z.enum(ACTION_INPUT_TYPES, { error: `must be one of ${ACTION_INPUT_TYPES.join(', ')}` }),
  label: text.optional(),
  help: z.string().optional(),
  required: z.boolean().optional(),
  maxLength: z.number().int('must be an integer').min(1, 'must be at least 1').max(1_000_000, 'must be at most 1000000').optional(),
  min: z.number().optional(),
  max: z.number().optional(),
  options: z.array(text).min(1, 'must list at least one value').optional(),
  reference: z.string().optional(),
});

/**
 * What an action does. One schema for every type (rather than a union) so that an unknown key is
 * reported with the keys `run` accepts; which keys suit which type is checked in loadActions.
 */
export const actionRunSchema = z.strictObject({
  type: z.enum(ACTION_RUN_TYPES, {
    error: `must be one of ${ACTION_RUN_TYPES.join(', ')}`,
  }),
  set: expressions('update: the record fields to assign').optional(),
  object: z.string().optional(),
  values: expressions('create: the fields of the new record').optional(),
  flow: z.string().optional(),
});

/** actions/<name>.json. Strict at every level: an unknown key is an error, with its path. */
export const actionDefinitionSchema = z.strictObject({
  name: z.string({ error: (i) => (i.input === undefined ? 'is required: the snake_case action name' : 'must be a string') }),
  label: text.optional(),
  description: z.string().optional(),
  object: z.string().optional(),
  permission: z.string().regex(PERMISSION_KEY, 'must be a permission key like task:close (lowercase resource:verb)').optional(),
  input: z.record(z.string(), actionInputFieldSchema, { error: 'must map input names to field declarations' }).optional(),
  run: actionRunSchema,
});

export type ParsedAction = z.infer<typeof actionDefinitionSchema>;
