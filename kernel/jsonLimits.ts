import { codedError, type CodedError } from './errors.ts';

/**
 * Levels of arrays and objects one JSON document (a request body, a JSON query parameter, an
 * inbound hook's payload, a JSON import file) may nest. Deep enough for every shape the API takes
 * (a condition 64 levels of `$and`, a json field 64 levels deep inside a batch); code that walks a
 * value recursively (schema validation, the auth engine, serializers) overflows the stack far
 * deeper than this.
 */
export const MAX_BODY_DEPTH = 256;

/** One problem of a JSON value, shaped as an entry of `details.errors`. */
export interface JsonProblem {
  path: string;
  message: string;
  limit?: string;
  max?: number;
}

/** A `\uD800`-`\uDFFF` escape in JSON text: the only way a lone surrogate gets into parsed UTF-8 text. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

const wellFormed = (s: string): boolean => (s as unknown as { isWellFormed(): boolean }).isWellFormed();

/**
 * How deeply a value nests arrays and objects, counted without recursion and stopping once past
 * `max` (a body nested 100,000 deep is refused without walking all of it). Scalars are depth 0.
 */
export function jsonDepthOver(value: unknown, max: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > max) return true;
    const children = Array.isArray(node) ? node : Object.values(node as Record<string, unknown>);
    for (const child of children) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}

/** The path of the first string (value or key) holding a lone UTF-16 surrogate, or null; without recursion. */
export function loneSurrogateAt(value: unknown, root: string): string | null {
  const stack: Array<[unknown, string]> = [[value, root]];
  while (stack.length > 0) {
    const [node, path] = stack.pop()!;
    if (typeof node === 'string') {
      if (!wellFormed(node)) return path;
    } else if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push([node[i], `${path}[${i}]`]);
    } else if (typeof node === 'object' && node !== null) {
      const entries = Object.entries(node as Record<string, unknown>);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i]!;
        if (!wellFormed(key)) return `${path}.${(key as unknown as { toWellFormed(): string }).toWellFormed()}`;
        stack.push([child, `${path}.${key}`]);
      }
    }
  }
  return null;
}

/**
 * What makes a parsed JSON document unfit to be taken in, or null: nesting deeper than `maxDepth`,
 * or a string holding a lone UTF-16 surrogate (`"\ud800"`: PostgreSQL refuses it in json columns
 * and both drivers would store something else than was sent). `text`, the document as received,
 * lets the common case (no surrogate escape in it) skip looking at every string.
 */
export function jsonProblem(value: unknown, options: { root?: string; text?: string; maxDepth?: number } = {}): JsonProblem | null {
  const root = options.root ?? 'body';
  const max = options.maxDepth ?? MAX_BODY_DEPTH;
  if (jsonDepthOver(value, max)) {
    return { path: root, message: `nests more than ${max} levels of arrays and objects`, limit: 'bodyDepth', max };
  }
  if (options.text !== undefined && !SURROGATE_ESCAPE.test(options.text)) return null;
  const at = loneSurrogateAt(value, root);
  return at === null ? null : { path: at, message: 'holds a lone UTF-16 surrogate (a \\uD800-\\uDFFF escape without its pair): send well-formed Unicode text' };
}

/** The 400 for a problem of `jsonProblem`. */
export function jsonProblemError(problem: JsonProblem): CodedError {
  return codedError('VALIDATION_ERROR', { summary: `${problem.path} ${problem.message}`, errors: [problem] });
}

/** `jsonProblem` as a throw: the value itself when it may be taken in. */
export function checkJson<T>(value: T, options: { root?: string; text?: string; maxDepth?: number } = {}): T {
  const problem = jsonProblem(value, options);
  if (problem) throw jsonProblemError(problem);
  return value;
}
