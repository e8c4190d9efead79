import { codedError, type CodedError } from '../../kernel/errors.ts';
import type { ExpressionContext } from '../types.ts';
import { analyzeExpression, type RunExpression } from './analyzeExpression.ts';
import { constantEnvironment } from './celEnvironment.ts';
import { isCelCostError, type CelCostError } from './celLimits.ts';
import { withClock } from './clock.ts';

const MAX_CACHED = 500;
/** Parsed and checked query operands by source; queries repeat the same few expressions (refusals too). */
const cache = new Map<string, RunExpression | { reason: string; costly?: CelCostError }>();

function invalid(expression: string, reason: string): CodedError {
  return codedError('VALIDATION_ERROR', { expression, reason, summary: `$cel expression '${expression}' is not valid: ${reason}` });
}

/** QUERY_TOO_COSTLY naming the bound a caller's expression went over (details `limit`, `max`). */
function tooCostly(expression: string, error: CelCostError): CodedError {
  const shown = expression.length > 80 ? `${expression.slice(0, 77)}...` : expression;
  return codedError('QUERY_TOO_COSTLY', {
    reason: `$cel expression '${shown}': ${error.message}`,
    fix: error.fix,
    expression,
    limit: error.limit,
    ...(error.max === null ? {} : { max: error.max }),
  });
}

function prepare(source: string): RunExpression | { reason: string; costly?: CelCostError } {
  const cached = cache.get(source);
  if (cached) return cached;
  const analysis = analyzeExpression(constantEnvironment(), source, null);
  const prepared = analysis.ok ? analysis.run : { reason: analysis.reason, ...(analysis.costly ? { costly: analysis.costly } : {}) };
  if (cache.size >= MAX_CACHED) cache.clear();
  cache.set(source, prepared);
  return prepared;
}

/**
 * Evaluates a query-time `{$cel: "..."}` operand: no record, the date functions and `user`.
 * Returns a Date for timestamps, a number for ints and doubles, strings, booleans and lists of those.
 * A bad expression throws VALIDATION_ERROR with details {expression, reason}; one over a cost bound
 * (celLimits.ts), when checked or while it runs, QUERY_TOO_COSTLY with details {limit, max}.
 */
export function evaluateConstantExpression(source: string, ctx?: ExpressionContext): unknown {
  if (typeof source !== 'string' || source.trim() === '') throw invalid(String(source), 'the expression is empty');
  const prepared = prepare(source);
  if (typeof prepared !== 'function') throw prepared.costly ? tooCostly(source, prepared.costly) : invalid(source, prepared.reason);
  let result: unknown;
  try {
    result = withClock(ctx?.now, () => prepared({ user: ctx?.user ?? null }));
  } catch (error) {
    if (isCelCostError(error)) throw tooCostly(source, error);
    throw invalid(source, (error as { summary?: string }).summary ?? (error as Error).message ?? String(error));
  }
  return toOperand(source, result);
}

function toOperand(source: string, value: unknown): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean' || value instanceof Date) return value;
  if (typeof value === 'bigint' || typeof value === 'number') return Number(value);
  if (Array.isArray(value)) return value.map((item) => toOperand(source, item));
  throw invalid(source, 'the result must be a timestamp, number, string, boolean or a list of those');
}
