import type { MetadataProblem } from './metadataError.ts';

/**
 * Keys the declaration language knows but nothing in this runtime acts on yet. Accepting them would
 * be declared-but-unenforced metadata, so the loader refuses them, naming the path. A key leaves this
 * list in the change that makes it do something.
 */
export const UNENFORCED_OBJECT_KEYS: Readonly<Record<string, string>> = {};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The declared keys of an object (dotted paths) that nothing enforces. */
export function unenforcedKeyProblems(input: unknown, keys: Readonly<Record<string, string>> = UNENFORCED_OBJECT_KEYS): MetadataProblem[] {
  if (!isObject(input)) return [];
  const problems: MetadataProblem[] = [];
  for (const [path, why] of Object.entries(keys)) {
    if (hasPath(input, path)) problems.push({ path, reason: `is not enforced: ${why}` });
  }
  return problems;
}

function hasPath(input: Record<string, unknown>, path: string): boolean {
  let at: unknown = input;
  for (const key of path.split('.')) {
    if (!isObject(at) || !Object.hasOwn(at, key)) return false;
    at = at[key];
  }
  return true;
}
