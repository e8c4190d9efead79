import { z } from 'zod';
import type { BookDefinition } from './types.ts';

const name = (what: string) => z.string({ error: (i) => (i.input === undefined ? `is required: the snake_case ${what} name` : 'must be a string') });
const text = z.string().min(1, 'must be a non-empty string');

export const bookAudienceSchema = z.strictObject({
  permissionSet: z.string({ error: (i) => (i.input === undefined ? 'is required: the permission set whose holders see the node' : 'must be a string') })
    .min(1, 'must name a permission set'),
});

/**
 * A node of a book. One schema for both kinds (rather than a union) so that an unknown key is
 * reported with the keys a node accepts; which keys suit which kind is checked in checkBookSemantics.
 */
export const bookNodeSchema = z.strictObject({
  name: name('node'),
  kind: z.enum(['section', 'page'], { error: (i) => (i.input === undefined ? "is required: 'section' or 'page'" : "must be 'section' or 'page'") }),
  label: text.optional(),
  description: z.string().optional(),
  object: z.string().optional(),
  view: z.string().optional(),
  audience: bookAudienceSchema.optional(),
  get children() {
    return z.array(bookNodeSchema).optional();
  },
});

/** books/<name>.json: a navigation tree of sections and pages. */
export const bookDefinitionSchema = z.strictObject({
  name: name('book'),
  label: text.optional(),
  description: z.string().optional(),
  nodes: z.array(bookNodeSchema, { error: (i) => (i.input === undefined ? 'is required: the top-level sections and pages' : 'must be an array of nodes') })
    .min(1, 'must hold at least one node'),
});

export function asBookDefinition(parsed: z.infer<typeof bookDefinitionSchema>): BookDefinition {
  return parsed;
}
