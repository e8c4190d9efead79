import type { Dialect } from '../sql/dialect.ts';
import type { ValueType } from '../sql/objectColumns.ts';
import type { AggregationNode, Granularity } from './types.ts';

/**
 * Time bucket of a date or datetime column, as a 'YYYY-MM-DD' label that is identical on both
 * drivers: the bucket's first day (weeks start on Monday, ISO 8601), datetimes taken in UTC.
 * On SQLite both types are ISO text starting with the UTC day, so the label is cut from the text.
 */
export function bucketSql(column: string, type: ValueType, granularity: Granularity, dialect: Dialect): string {
  if (dialect === 'postgres') {
    const ts = type === 'datetime' ? `(${column} at time zone 'UTC')` : `cast(${column} as timestamp)`;
    const truncated = granularity === 'day' ? ts : `date_trunc('${granularity}', ${ts})`;
    return `to_char(${truncated}, 'YYYY-MM-DD')`;
  }
  const day = `substr(${column}, 1, 10)`;
  switch (granularity) {
    case 'day':
      return day;
    case 'week':
      // strftime('%w') is 0 for Sunday; step back to the Monday of the same ISO week.
      return `date(${day}, '-' || ((cast(strftime('%w', ${day}) as integer) + 6) % 7) || ' days')`;
    case 'month':
      return `substr(${column}, 1, 7) || '-01'`;
    case 'quarter':
      return `substr(${column}, 1, 5) || (case when cast(substr(${column}, 6, 2) as integer) <= 3 then '01' when cast(substr(${column}, 6, 2) as integer) <= 6 then '04' when cast(substr(${column}, 6, 2) as integer) <= 9 then '07' else '10' end) || '-01'`;
    case 'year':
      return `substr(${column}, 1, 4) || '-01-01'`;
  }
}

/**
 * SQL of an aggregation over `column` (null for count(*)). array_agg and string_agg order their
 * values and skip nulls, so both drivers return the same array / comma-joined string.
 */
export function aggregationSql(node: AggregationNode, column: string | null, dialect: Dialect): string {
  const x = column ?? '*';
  switch (node.fn) {
    case 'count':
      return `count(${x})`;
    case 'count_distinct':
      return `count(distinct ${x})`;
    case 'sum':
    case 'avg':
    case 'min':
    case 'max':
      return `${node.fn}(${x})`;
    case 'array_agg':
      return dialect === 'postgres'
        ? `coalesce(json_agg(${x} order by ${x}) filter (where ${x} is not null), '[]'::json)`
        : `coalesce(json_group_array(${x} order by ${x}) filter (where ${x} is not null), '[]')`;
    case 'string_agg':
      return dialect === 'postgres' ? `string_agg(${x}, ',' order by ${x})` : `group_concat(${x}, ',' order by ${x})`;
  }
}
