import { isCodedError } from '../kernel/errors.ts';
import { suggest } from '../kernel/suggest.ts';
import { parseQuery } from '../plugins/data/query/parseQuery.ts';
import type { MetadataProblem } from './metadataError.ts';
import type { ResolvedObject } from './types.ts';

/** Query keys a dashboard or dataset cannot keep: a page position means nothing to either. */
const PAGING_KEYS = ['cursor', 'offset'];

/** `path` below `at` (either may be empty). */
const below = (at: string, path: string) => (at && path ? `${at}.${path}` : at || path);

/**
 * Type-checks a structured query (a dataset's, a widget's) against the object schema with the data engine's own query parser
 * (every field, operator, alias and value type), without a caller: field-level security applies
 * when it runs, as the caller.
 */
export function checkStructuredQuery(query: Record<string, unknown>, at: string, objects: ReadonlyMap<string, ResolvedObject>): MetadataProblem[] {
  const name = query.object;
  if (typeof name !== 'string') return [{ path: below(at, 'object'), reason: 'is required: the name of the object the query reads' }];
  const object = objects.get(name);
  if (!object) {
    const near = suggest(name, [...objects.keys()]);
    return [{ path: below(at, 'object'), reason: `unknown object '${name}'${near ? ` (did you mean '${near}'?)` : ''}` }];
  }
  if (!object.apiEnabled) return [{ path: below(at, 'object'), reason: `object '${name}' has apiEnabled false: no widget can read it` }];
  const problems: MetadataProblem[] = PAGING_KEYS.filter((key) => query[key] !== undefined).map((key) => ({ path: below(at, key), reason: `a widget shows the first rows of its query; drop ${key}` }));
  problems.push(...queryProblems(query, object, at, objects));
  return problems;
}

/**
 * The problems the data engine's query parser finds in a structured query of `object` (the
 * parser every `/data` query goes through), each at its path below `at`: an unknown field, an
 * operator the field's type does not take, a value of the wrong type.
 */
export function queryProblems(query: Record<string, unknown>, object: ResolvedObject, at: string, objects: ReadonlyMap<string, ResolvedObject>): MetadataProblem[] {
  try {
    parseQuery(query, object, { get: (n) => objects.get(n) });
    return [];
  } catch (error) {
    if (!isCodedError(error)) throw error;
    const errors = (error.details.errors as Array<{ path: string; message: string }> | undefined) ?? [{ path: typeof error.details.path === 'string' ? error.details.path : '', message: error.message }];
    return errors.map((e) => ({ path: below(at, e.path), reason: e.message }));
  }
}
