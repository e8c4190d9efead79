import type { ValueType } from '../sql/objectColumns.ts';
import { familyOf } from './operandTypes.ts';
import type { FieldScope } from './fieldScope.ts';
import { parseCondition } from './parseCondition.ts';
import { QUERY_LIMITS } from './queryLimits.ts';
import type { RawSort } from './parseSelection.ts';
import type { QueryIssues } from './queryErrors.ts';
import { isPlainObject, pathJoin, show } from './queryErrors.ts';
import type { AggregateFunction, AggregationNode, Condition, Granularity, GroupKey, SortKey, Target } from './types.ts';

const GRANULARITIES: readonly Granularity[] = ['day', 'week', 'month', 'quarter', 'year'];
const FUNCTIONS: readonly AggregateFunction[] = ['count', 'sum', 'avg', 'min', 'max', 'count_distinct', 'array_agg', 'string_agg'];
const ALIAS = /^[a-z_][a-z0-9_]{0,62}$/i;

export function parseGroupBy(input: unknown, scope: FieldScope, issues: QueryIssues): GroupKey[] {
  if (input === undefined) return [];
  const list = typeof input === 'string' ? input.split(',').map((s) => s.trim()).filter(Boolean) : input;
  if (!Array.isArray(list)) {
    issues.add('groupBy', 'groupBy must be an array of field names or {field, dateGranularity}');
    return [];
  }
  if (list.length > QUERY_LIMITS.groupBy) {
    issues.over('groupBy', 'groupBy', QUERY_LIMITS.groupBy, `groupBy takes at most ${QUERY_LIMITS.groupBy} keys, not ${list.length}`);
    return [];
  }
  const keys: GroupKey[] = [];
  list.forEach((entry, i) => {
    const path = pathJoin('groupBy', i);
    let name: unknown = entry;
    let granularity: Granularity | null = null;
    if (isPlainObject(entry)) {
      for (const key of Object.keys(entry)) if (key !== 'field' && key !== 'dateGranularity') issues.add(pathJoin(path, key), `unknown group-by key '${key}'`);
      name = entry.field;
      if (entry.dateGranularity !== undefined) {
        if (!(GRANULARITIES as readonly unknown[]).includes(entry.dateGranularity)) {
          issues.add(pathJoin(path, 'dateGranularity'), `dateGranularity must be one of ${GRANULARITIES.join(', ')}, not ${show(entry.dateGranularity)}`);
          return;
        }
        granularity = entry.dateGranularity as Granularity;
      }
    }
    const resolved = scope.resolve(name);
    const at = isPlainObject(entry) ? pathJoin(path, 'field') : path;
    if (!resolved.ok) return issues.add(at, resolved.message);
    const type = resolved.ref.type;
    if (type === 'json' || type === 'multiselect') return issues.add(at, `a ${type} field cannot be grouped on`);
    if (granularity && type !== 'date' && type !== 'datetime') return issues.add(at, `dateGranularity needs a date or datetime field; '${resolved.key}' is ${type}`);
    if (keys.some((k) => k.key === resolved.key)) return issues.add(at, `'${resolved.key}' is grouped on twice`);
    keys.push({ key: resolved.key, ref: resolved.ref, granularity });
  });
  return keys;
}

export function parseAggregations(input: unknown, scope: FieldScope, groupBy: GroupKey[], issues: QueryIssues): AggregationNode[] {
  if (input === undefined) return [];
  if (!Array.isArray(input)) {
    issues.add('aggregations', 'aggregations must be an array of {function, field?, alias}');
    return [];
  }
  if (input.length > QUERY_LIMITS.aggregations) {
    issues.over('aggregations', 'aggregations', QUERY_LIMITS.aggregations, `a query computes at most ${QUERY_LIMITS.aggregations} aggregations, not ${input.length}`);
    return [];
  }
  const out: AggregationNode[] = [];
  input.forEach((entry, i) => {
    const path = pathJoin('aggregations', i);
    if (!isPlainObject(entry)) return issues.add(path, 'an aggregation is {function, field?, alias}');
    for (const key of Object.keys(entry)) if (!['function', 'field', 'alias'].includes(key)) issues.add(pathJoin(path, key), `unknown aggregation key '${key}'`);
    const fn = entry.function;
    if (!(FUNCTIONS as readonly unknown[]).includes(fn)) return issues.add(pathJoin(path, 'function'), `unknown aggregate function ${show(fn)}; functions are ${FUNCTIONS.join(', ')}`);
    const alias = entry.alias;
    if (typeof alias !== 'string' || !ALIAS.test(alias)) return issues.add(pathJoin(path, 'alias'), `alias must be an identifier, not ${show(alias)}`);
    if (out.some((a) => a.alias === alias) || groupBy.some((g) => g.key === alias)) return issues.add(pathJoin(path, 'alias'), `alias '${alias}' is already used`);
    if (entry.field === undefined) {
      if (fn !== 'count') return issues.add(pathJoin(path, 'field'), `${fn} needs a field`);
      out.push({ fn: 'count', ref: null, alias, type: 'integer' });
      return;
    }
    const resolved = scope.resolve(entry.field);
    if (!resolved.ok) return issues.add(pathJoin(path, 'field'), resolved.message);
    const type = resolved.ref.type;
    const family = familyOf(type);
    const refuse = (why: string) => issues.add(pathJoin(path, 'field'), `${fn} ${why}; '${resolved.key}' is ${type}`);
    if (family === 'json' || family === 'multiselect') return refuse('cannot aggregate json or multiselect fields');
    if ((fn === 'sum' || fn === 'avg') && family !== 'number') return refuse('needs a numeric field');
    if ((fn === 'min' || fn === 'max') && family === 'boolean') return refuse('needs a number, text, date or datetime field');
    if (fn === 'string_agg' && family !== 'text') return refuse('needs a text field');
    out.push({ fn: fn as AggregateFunction, ref: resolved.ref, alias, type: resultType(fn as AggregateFunction, type) });
  });
  return out;
}

function resultType(fn: AggregateFunction, type: ValueType): ValueType {
  switch (fn) {
    case 'count':
    case 'count_distinct':
      return 'integer';
    case 'sum':
    case 'avg':
      return 'number';
    case 'array_agg':
      return 'json';
    case 'string_agg':
      return 'text';
    default:
      return type;
  }
}

/** Type of a group key's value in result rows (buckets are 'YYYY-MM-DD' labels). */
export function groupKeyType(key: GroupKey): ValueType {
  return key.granularity ? 'date' : key.ref.type;
}

/** having: the operator language over aggregation aliases and plain group keys. */
export function parseHaving(input: unknown, scope: FieldScope, groupBy: GroupKey[], aggregations: AggregationNode[], issues: QueryIssues): Condition | null {
  if (input === undefined) return null;
  return parseCondition(input, 'having', {
    issues,
    resolveTarget(key, path): Target | null {
      const aggregation = aggregations.find((a) => a.alias === key);
      if (aggregation) return { kind: 'aggregate', alias: aggregation.alias, type: aggregation.type };
      const group = groupBy.find((g) => g.key === key);
      if (group && !group.granularity) return { kind: 'field', ref: group.ref };
      issues.add(path, `having can test aggregation aliases and plain group-by fields; '${key}' is neither (${scope.object.name})`);
      return null;
    },
  });
}

/** Sort keys of an aggregate query: group keys and aggregation aliases. */
export function parseOutputSort(raw: RawSort[], groupBy: GroupKey[], aggregations: AggregationNode[], issues: QueryIssues): SortKey[] {
  const keys: SortKey[] = [];
  for (const sort of raw) {
    const group = groupBy.find((g) => g.key === sort.field);
    const aggregation = aggregations.find((a) => a.alias === sort.field);
    const type = group ? groupKeyType(group) : aggregation?.type;
    if (!type || type === 'json') {
      issues.add(sort.path, `an aggregate query sorts on its group-by fields and aggregation aliases; '${sort.field}' is neither`);
      continue;
    }
    keys.push({ target: { kind: 'output', key: sort.field, type }, direction: sort.direction });
  }
  return keys;
}
