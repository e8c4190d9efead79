import { z } from 'zod';
import { PERMISSION_KEY } from '../capabilities/holdsPermission.ts';

/** agents/<name>.json. Strict: an unknown key is an error, with its path. */
export const agentDefinitionSchema = z.strictObject({
  name: z.string({ error: (i) => (i.input === undefined ? 'is required: the snake_case agent name' : 'must be a string') }),
  label: z.string().min(1, 'must be a non-empty string').optional(),
  description: z.string().max(2000).optional(),
  model: z.string().regex(/^[a-z][a-z0-9_-]{0,62}\/.{1,200}$/, 'must be <providerId>/<model>, e.g. openai/gpt-4o-mini').optional(),
  /** A permission key the caller must hold to talk to the agent (admins hold every key); absent: every holder of ai:chat. */
  permission: z.string().regex(PERMISSION_KEY, 'must be a permission key like support:assist (lowercase resource:verb)').optional(),
  instructions: z.string({ error: 'is required: the system prompt of the agent' }).min(1, 'must not be empty').max(20_000, 'must be at most 20000 characters'),
  tools: z.array(z.string({ error: 'must be a tool name' }), { error: 'must list tool names' }).max(100, 'must list at most 100 tools').default([]),
  /** Access objects (permissions, positions, sharing) the write tools may propose changes to; none by default. */
  accessObjects: z.array(z.string({ error: 'must be an object name' }), { error: 'must list object names' }).max(20, 'must list at most 20 objects').default([]),
});

export type ParsedAgent = z.infer<typeof agentDefinitionSchema>;
