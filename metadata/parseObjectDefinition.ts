import type { ObjectDefinition } from './types.ts';
import { asObjectDefinition, objectDefinitionSchema } from './objectSchema.ts';
import { checkObjectSemantics } from './checkObjectSemantics.ts';
import { describeIssues } from './describeIssues.ts';
import type { MetadataProblem } from './metadataError.ts';
import { PARSE_ONCE } from '../kernel/parseOnce.ts';

export type ParsedObject =
  | { ok: true; definition: ObjectDefinition }
  | { ok: false; problems: MetadataProblem[] };

/** Schema and cross-key checks of one declaration, every problem at once. */
export function parseObjectDefinition(input: unknown): ParsedObject {
  const parsed = objectDefinitionSchema.safeParse(input, PARSE_ONCE);
  const problems = parsed.success ? [] : describeIssues(objectDefinitionSchema, input, parsed.error.issues);
  problems.push(...checkObjectSemantics(input));
  if (parsed.success && problems.length === 0) return { ok: true, definition: asObjectDefinition(parsed.data) };
  return { ok: false, problems };
}
