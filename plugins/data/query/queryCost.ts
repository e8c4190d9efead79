import { codedError, type CodedError } from '../../../kernel/errors.ts';
import { joinKeepsRows } from './parseJoins.ts';
import type { QueryAst } from './types.ts';

/** The cost bounds of the data plugin's queries (options `queryTimeoutMs`, `maxJoins`). */
export interface QueryCost {
  /** How long one statement of a query may run, in ms. */
  timeoutMs: number;
  /** Joins one query may hold. */
  maxJoins: number;
}

export const DEFAULT_QUERY_COST: QueryCost = { timeoutMs: 10_000, maxJoins: 4 };

/** The error a SQLite connection's budget function (os_budget) throws past its deadline. */
export const BUDGET_EXCEEDED = 'OSR_QUERY_BUDGET';

/**
 * A query whose rows can multiply: a join that is not many-to-one on the target's id (one-to-many,
 * a self-join on a shared value, right or full). Ten rows joined eight times to themselves on a
 * shared value are 10^8 rows. Such queries run under the time budget (see docs/data-api.md, Query
 * cost); any other query reads each table at most once per row it returns.
 */
export function isCostly(ast: QueryAst): boolean {
  return ast.joins.length > 0 && !ast.joins.every(joinKeepsRows);
}

/** QUERY_TOO_COSTLY for a query with more joins than allowed. */
export function tooManyJoins(joins: number, maxJoins: number): CodedError {
  return codedError('QUERY_TOO_COSTLY', {
    reason: `it holds ${joins} joins and at most ${maxJoins} are allowed`,
    fix: `use at most ${maxJoins} joins (plugins.data.maxJoins), or read the joined object with expand or a second query`,
    limit: 'maxJoins',
    max: maxJoins,
  });
}

/**
 * QUERY_TOO_COSTLY for a statement stopped at the time budget: SQLite's budget function, or
 * PostgreSQL's statement_timeout (SQLSTATE 57014, query_canceled). Null for any other error.
 */
export function budgetError(error: unknown, cost: QueryCost): CodedError | null {
  const code = (error as { code?: unknown } | null)?.code;
  const message = (error as { message?: unknown } | null)?.message;
  if (code !== '57014' && code !== BUDGET_EXCEEDED && !(typeof message === 'string' && message.includes(BUDGET_EXCEEDED))) return null;
  return codedError('QUERY_TOO_COSTLY', {
    reason: `it ran longer than the time budget of ${cost.timeoutMs} ms`,
    fix: 'narrow the filter, use fewer joins (a join on a field other than the target\'s id multiplies rows), or ask for a smaller page',
    limit: 'queryTimeoutMs',
    max: cost.timeoutMs,
  });
}

/** What a read stopped because its client went away answers (nobody is left to read it). */
export function requestClosed(): CodedError {
  return codedError('SERVICE_UNAVAILABLE', { service: 'The query', reason: 'its request was closed before it finished' });
}
