import type { ParseResult } from '@marcbachmann/cel-js';
import { codedError, type CodedError } from '../../kernel/errors.ts';
import type { ExpressionContext } from '../types.ts';
import { analyzeExpression } from './analyzeExpression.ts';
import { constantEnvironment } from './celEnvironment.ts';
import { withClock } from './clock.ts';

const MAX_CACHED = 500;
/** Parsed and checked query operands by source; queries repeat the same few expressions. */
const cache = new Map<string, ParseResult | { reason: string }>();

function invalid(expression: string, reason: string): CodedError {
  return codedError('VALIDATION_ERROR', { expression, reason, summary: `$cel expression '${expression}' is not valid: ${reason}` });
}

function prepare(source: string): ParseResult | { reason: string } {
  const cached = cache.get(source);
  if (cached) return cached;
  const analysis = analyzeExpression(constantEnvironment(), source, null);
  const prepared = analysis.ok ? analysis.run : { reason: analysis.reason };
  if (cache.size >= MAX_CACHED) cache.clear();
  cache.set(source, prepared);
  return prepared;
}

/**
 * Evaluates a query-time `{$cel: "..."}` operand: no record, the date functions and `user`.
 * Returns a Date for timestamps, a number for ints and doubles, strings, booleans and lists of those.
 * A bad expression throws VALIDATION_ERROR with details {expression, reason}.
 */
export function evaluateConstantExpression(source: string, ctx?: ExpressionContext): unknown {
  if (typeof source !== 'string' || source.trim() === '') throw invalid(String(source), 'the expression is empty');
  const prepared = prepare(source);
  if (typeof prepared !== 'function') throw invalid(source, prepared.reason);
  let result: unknown;
  try {
    result = withClock(ctx?.now, () => prepared({ user: ctx?.user ?? null }));
  } catch (error) {
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
