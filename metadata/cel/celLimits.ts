/**
 * The cost bounds of every CEL expression, whoever wrote it: a caller's `{$cel}` operand or an
 * admin's formula, rule, condition or flow expression. One step is one evaluated node of the
 * expression; values it builds count as well (a list one step per element, a string one step per
 * 64 characters, whether built or handed whole to a function or comparison; a `matches()` one
 * step per 4 characters of its text; an error raised, and caught by `||` or `exists`, 100 steps).
 * See docs/data-api.md.
 */
export const CEL_LIMITS = {
  /** Steps an expression may be estimated to take when it is checked (comprehensions multiply). */
  maxCost: 100_000,
  /** Steps one evaluation may take; past it the evaluation stops. */
  maxSteps: 100_000,
  /**
   * Milliseconds one evaluation may take; past it the evaluation stops. A backstop for what steps
   * do not measure: within the step bound an evaluation takes a few ms, on a busy machine a few
   * hundred at most.
   */
  timeoutMs: 500,
  /** Elements a list is assumed to hold when its size is not known from the expression (a field, a variable). */
  assumedListSize: 50,
  /** Characters of an expression (parsing and checking take time in proportion). */
  sourceLength: 10_000,
  /** Characters of a `matches()` pattern. */
  patternLength: 1000,
} as const;

/** Which bound an expression went over; the names docs/data-api.md lists. */
export type CelLimit = 'celLength' | 'celCost' | 'celSteps' | 'celTimeoutMs' | 'celPattern';

/**
 * An expression over a cost bound, at check time or while it runs. Each edge says it in its own
 * terms: QUERY_TOO_COSTLY for a caller's operand, METADATA_INVALID for a declaration at load.
 */
export class CelCostError extends Error {
  readonly limit: CelLimit;
  /** The bound's value; null for a pattern refused for its shape. */
  readonly max: number | null;
  readonly fix: string;

  constructor(limit: CelLimit, max: number | null, reason: string, fix: string) {
    super(reason);
    this.name = 'CelCostError';
    this.limit = limit;
    this.max = max;
    this.fix = fix;
  }
}

export function isCelCostError(value: unknown): value is CelCostError {
  return value instanceof CelCostError;
}

const SIMPLER = 'nest fewer comprehensions (all, exists, exists_one, map, filter) or iterate shorter lists';

export function estimatedTooCostly(cost: number): CelCostError {
  return new CelCostError('celCost', CEL_LIMITS.maxCost,
    `its estimated cost is ${cost >= 1e12 ? cost.toExponential(1) : Math.round(cost).toLocaleString('en-US')} steps and at most ${CEL_LIMITS.maxCost.toLocaleString('en-US')} are allowed (comprehensions multiply: a list of unknown size counts as ${CEL_LIMITS.assumedListSize} elements)`,
    SIMPLER);
}

export function tooLong(length: number): CelCostError {
  return new CelCostError('celLength', CEL_LIMITS.sourceLength,
    `it holds ${length.toLocaleString('en-US')} characters and at most ${CEL_LIMITS.sourceLength.toLocaleString('en-US')} are allowed`,
    'write a shorter expression (a formula can read another formula field)');
}

export function stepsExceeded(): CelCostError {
  return new CelCostError('celSteps', CEL_LIMITS.maxSteps,
    `its evaluation went past ${CEL_LIMITS.maxSteps.toLocaleString('en-US')} steps and was stopped`,
    `${SIMPLER}, or build smaller strings and lists`);
}

export function timeExceeded(): CelCostError {
  return new CelCostError('celTimeoutMs', CEL_LIMITS.timeoutMs,
    `its evaluation ran longer than ${CEL_LIMITS.timeoutMs} ms and was stopped`,
    `${SIMPLER}, or apply string functions to shorter text`);
}
