import type { ExpressionContext, ResolvedObject } from '../../../metadata/types.ts';
import { FieldScope, type FieldGuard } from './fieldScope.ts';
import { parseAggregations, parseGroupBy, parseHaving, parseOutputSort } from './parseAggregation.ts';
import { parseCondition } from './parseCondition.ts';
import { joinKeepsRows, parseJoins } from './parseJoins.ts';
import { parseExpand, parseRecordSort, parseSelection, parseSortList } from './parseSelection.ts';
import { QueryIssues, isPlainObject, show } from './queryErrors.ts';
import { tooManyJoins } from './queryCost.ts';
import { jsonProblem } from '../../../kernel/jsonLimits.ts';
import type { Condition, FieldRef, ObjectRegistry, QueryAst, QueryInput, SelectItem } from './types.ts';

/** Page size when the query names none (capped by the object's maxPageSize). */
export const DEFAULT_PAGE_SIZE = 50;

const KEYS = ['object', 'fields', 'select', 'where', 'orderBy', 'limit', 'offset', 'cursor', 'expand', 'joins', 'groupBy', 'aggregations', 'having', 'distinct'];

/**
 * Checks a structured query against metadata and normalizes it. Every problem is collected and
 * reported in one VALIDATION_ERROR whose details are {errors: [{path, message}]}; nothing that
 * reaches compileQuery names a field, alias or operator that metadata does not know.
 * Query-string forms are accepted too: `where` as JSON text, comma lists, numeric strings.
 */
export interface ParseQueryOptions {
  /** Clock and user for `{$cel}` operands (default: now, no user). */
  cel?: ExpressionContext;
  /** Field-level security: called for every field the query names (where, select, orderBy, groupBy, aggregations, joins, expand). */
  fieldGuard?: FieldGuard;
  /** Joins a query may hold (plugins.data.maxJoins); more is QUERY_TOO_COSTLY. */
  maxJoins?: number;
}

export function parseQuery(input: unknown, object: ResolvedObject, registry: ObjectRegistry, options: ParseQueryOptions = {}): QueryAst {
  const issues = new QueryIssues();
  if (!isPlainObject(input)) {
    issues.add('', 'the query must be a JSON object');
    issues.throwIfAny();
  }
  const query = input as QueryInput;
  if (options.maxJoins !== undefined && Array.isArray(query.joins) && query.joins.length > options.maxJoins) throw tooManyJoins(query.joins.length, options.maxJoins);
  for (const key of Object.keys(query)) {
    if (!KEYS.includes(key)) issues.add(key, `unknown query key '${key}'; keys are ${KEYS.join(', ')}`);
  }
  if (query.object !== undefined && query.object !== object.name) {
    issues.add('object', `the query targets ${show(query.object)} but is sent to object '${object.name}'`);
  }
  if (query.fields !== undefined && query.select !== undefined) issues.add('select', 'send fields or select, not both');

  const scope = new FieldScope(object, options.fieldGuard);
  const joins = parseJoins(query.joins, scope, registry, issues);
  const where = parseWhere(parseJson(query.where, 'where', issues), scope, issues, 'where', options.cel);
  const distinct = parseBoolean(query.distinct, 'distinct', issues);

  const groupBy = parseGroupBy(query.groupBy, scope, issues);
  const aggregations = parseAggregations(query.aggregations, scope, groupBy, issues);
  const aggregate = groupBy.length > 0 || aggregations.length > 0;
  const having = aggregate ? parseHaving(parseJson(query.having, 'having', issues), scope, groupBy, aggregations, issues) : null;
  if (!aggregate && query.having !== undefined) issues.add('having', 'having needs groupBy or aggregations');

  const projection = query.fields ?? query.select;
  const projectionPath = query.fields !== undefined ? 'fields' : 'select';
  if (aggregate && projection !== undefined) issues.add(projectionPath, 'an aggregate query returns its group-by fields and aggregations; drop fields/select');
  const selection = aggregate ? { select: [], formulas: [], output: null } : parseSelection(projection, projectionPath, scope, joins, issues, distinct);

  const rawSort = parseSortList(typeof query.orderBy === 'string' ? query.orderBy : parseJson(query.orderBy, 'orderBy', issues), issues);
  const orderBy = aggregate ? parseOutputSort(rawSort, groupBy, aggregations, issues) : parseRecordSort(rawSort, scope, issues);

  if (distinct && !aggregate) {
    for (const key of orderBy) {
      if (key.target.kind === 'field' && !selection.select.some((s) => key.target.kind === 'field' && s.ref.alias === key.target.ref.alias && s.ref.name === key.target.ref.name)) {
        issues.add('orderBy', `a distinct query can only sort on selected fields; '${key.target.ref.alias ? key.target.ref.alias + '.' : ''}${key.target.ref.name}' is not selected`);
      }
    }
  }

  const expand = parseExpand(query.expand, scope, registry, issues);
  if (aggregate && expand.length > 0) issues.add('expand', 'expand does not apply to aggregate queries');
  if (distinct && expand.length > 0) issues.add('expand', 'expand does not apply to distinct queries');
  for (const node of expand) ensureSelected(selection.select, selection.output, object, node.field);

  const limit = parseLimit(query.limit, object, issues);
  const offset = parseInteger(query.offset, 'offset', 0, issues);
  const cursor = query.cursor === undefined || query.cursor === null || query.cursor === '' ? null : query.cursor;
  if (cursor !== null && typeof cursor !== 'string') issues.add('cursor', 'cursor must be the string returned as nextCursor');
  if (cursor !== null && query.offset !== undefined && offset > 0) issues.add('cursor', 'send cursor or offset, not both');
  const keyset = !aggregate && !distinct && joins.every(joinKeepsRows);
  if (cursor !== null && !keyset) {
    issues.add('cursor', 'cursor pagination needs one row per record: not available with groupBy, aggregations, distinct, or right/full/one-to-many joins; use offset');
  }
  issues.throwIfAny();

  return {
    object,
    select: selection.select,
    formulas: selection.formulas,
    output: selection.output,
    where,
    orderBy,
    limit,
    offset,
    cursor: cursor as string | null,
    expand,
    joins,
    groupBy,
    aggregations,
    having,
    distinct,
    aggregate,
    keyset,
  };
}

/** Parses a where condition of `object` alone (no joins): also the way to build a scope filter. */
export function parseWhere(input: unknown, scope: FieldScope, issues: QueryIssues, path = 'where', cel?: ExpressionContext): Condition | null {
  if (input === undefined || input === null) return null;
  return parseCondition(input, path, {
    issues,
    ...(cel ? { cel } : {}),
    resolveTarget(key, at) {
      const resolved = scope.resolve(key);
      if (resolved.ok) return { kind: 'field', ref: resolved.ref };
      issues.add(at, resolved.formula ? `'${key}' is a formula field: it is computed after reading and cannot be filtered on` : resolved.message);
      return null;
    },
    resolveField(name, at): FieldRef | null {
      const resolved = scope.resolve(name);
      if (resolved.ok) return resolved.ref;
      issues.add(at, resolved.message);
      return null;
    },
  });
}

/**
 * A scope filter (row-level security) for one object, in the same operator language as `where`;
 * its fields refer to that object wherever it is read (query, join target, expand).
 */
export function parseScopeFilter(input: unknown, object: ResolvedObject, options: ParseQueryOptions = {}): Condition | null {
  const issues = new QueryIssues();
  const condition = parseWhere(input, new FieldScope(object), issues, 'scope', options.cel);
  issues.throwIfAny();
  return condition;
}

function ensureSelected(select: SelectItem[], output: string[] | null, object: ResolvedObject, field: string): void {
  if (!select.some((s) => s.key === field)) {
    select.push({ key: field, ref: { alias: null, object: object.name, name: field, column: field, type: 'lookup', seqColumn: null } });
  }
  if (output && !output.includes(field)) output.push(field);
}

function parseJson(value: unknown, path: string, issues: QueryIssues): unknown {
  if (typeof value !== 'string') return value;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value) as unknown;
  } catch {
    issues.add(path, 'is not valid JSON');
    return undefined;
  }
  const problem = jsonProblem(parsed, { root: path, text: value });
  if (!problem) return parsed;
  if (problem.limit) issues.over(problem.path, problem.limit, problem.max!, problem.message);
  else issues.add(problem.path, problem.message);
  return undefined;
}

function parseBoolean(value: unknown, path: string, issues: QueryIssues): boolean {
  if (value === undefined || value === false || value === 'false') return false;
  if (value === true || value === 'true') return true;
  issues.add(path, `must be true or false, not ${show(value)}`);
  return false;
}

function parseInteger(value: unknown, path: string, fallback: number, issues: QueryIssues): number {
  if (value === undefined || value === null || value === '') return fallback;
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) {
    issues.add(path, `must be a non-negative integer, not ${show(value)}`);
    return fallback;
  }
  return n;
}

function parseLimit(value: unknown, object: ResolvedObject, issues: QueryIssues): number {
  const cap = object.maxPageSize;
  const fallback = Math.min(DEFAULT_PAGE_SIZE, cap);
  if (value === undefined || value === null || value === '') return fallback;
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1) {
    issues.add('limit', `limit must be a positive integer, not ${show(value)}`);
    return fallback;
  }
  if (n > cap) {
    issues.add('limit', `limit ${n} is over the page size cap of ${cap} for object '${object.name}' (maxPageSize); use at most ${cap} and paginate`);
    return fallback;
  }
  return n;
}
