import { RE2JS } from 're2js';
import { ambiguousRepetition } from './ambiguousRepetition.ts';
import { CEL_LIMITS, CelCostError } from './celLimits.ts';

/** A `matches()` pattern RE2 does not accept; the message says why. */
export class PatternError extends Error {
  readonly code = 'invalid_regular_expression';
}

const MAX_CACHED = 200;
/** Compiled patterns by source, and the refusals; the same few patterns repeat. */
const cache = new Map<string, RE2JS | Error>();

function compile(pattern: string): RE2JS | Error {
  if (pattern.length > CEL_LIMITS.patternLength) {
    return new CelCostError('celPattern', CEL_LIMITS.patternLength, `its matches() pattern holds ${pattern.length} characters and at most ${CEL_LIMITS.patternLength} are allowed`, 'use a shorter pattern');
  }
  const shown = pattern.length > 60 ? `${pattern.slice(0, 57)}...` : pattern;
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern);
  } catch (error) {
    return new PatternError(`invalid regular expression '${shown}': ${(error as Error).message.replace(/^error parsing regexp: /, '')} (matches() takes RE2 syntax: no lookaround, no backreferences)`);
  }
  const ambiguity = ambiguousRepetition(pattern);
  if (ambiguity) {
    return new CelCostError('celPattern', null, `its matches() pattern '${shown}' can take exponential time in a backtracking engine: ${ambiguity}`,
      'write the pattern so that each piece of text matches one way: no repetition of a repetition ((a+)+), no repeated alternatives that start alike ((a|ab)*)');
  }
  return compiled;
}

/** The compiled pattern; throws PatternError (not RE2) or CelCostError (too long, or exponential when backtracked). */
export function compilePattern(pattern: string): RE2JS {
  let entry = cache.get(pattern);
  if (!entry) {
    entry = compile(pattern);
    if (cache.size >= MAX_CACHED) cache.clear();
    cache.set(pattern, entry);
  }
  if (entry instanceof Error) throw entry;
  return entry;
}

/** CEL's `text.matches(pattern)`: whether the pattern matches anywhere in the text, in time linear in the text. */
export function matchPattern(text: string, pattern: string): boolean {
  return compilePattern(pattern).test(text);
}
