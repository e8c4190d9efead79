/**
 * fast-check generators for the data API's inputs: real object, field and operator names mixed
 * with junk at every level (wrong types, unknown keys, odd encodings). typedArbitraries.ts holds
 * the ones that follow each field's type, to get past validation.
 */
import fc from 'fast-check';
import { loadApps } from '../../metadata/loadApps.ts';
import type { ResolvedObject } from '../../metadata/types.ts';

export const CRM_OBJECTS: Map<string, ResolvedObject> = (await loadApps([new URL('../../metadata/apps/crm', import.meta.url).pathname])).objects;
export const OBJECT_NAMES = [...CRM_OBJECTS.keys()];
const SYSTEM = ['id', 'version', 'created_at', 'updated_at', 'created_by', 'updated_by', 'owner_id'];
const FIELDS = [...new Set([...SYSTEM, ...[...CRM_OBJECTS.values()].flatMap((o) => Object.keys(o.fields))])];
const LOOKUPS = [...new Set([...CRM_OBJECTS.values()].flatMap((o) => Object.entries(o.fields).filter(([, f]) => f.type === 'lookup').map(([n]) => n)))];
const OPERATORS = ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$between', '$contains', '$notContains', '$startsWith', '$endsWith', '$null', '$exists', '$like', '$regex', '$'];
const QUERY_KEYS = ['where', 'orderBy', 'select', 'fields', 'expand', 'limit', 'offset', 'cursor', 'groupBy', 'aggregations', 'having', 'distinct', 'joins', 'object'];
const AGGREGATES = ['count', 'sum', 'avg', 'min', 'max', 'count_distinct', 'array_agg', 'string_agg', 'median'];
const CEL = ['now', 'today()', 'daysAgo(3)', 'daysFromNow(10)', 'user.id', 'record.name', '1 +', '"x" + 1', 'timestamp("2025-01-01T00:00:00Z")', ''];

/** Strings a driver might choke on: NUL, quotes, SQL, huge and odd numbers as text, odd dates. */
export const nasty = fc.constantFrom(
  '\u0000', 'a\u0000b', "'", '"', '`', '\\', "'; drop table account; --", '%', '_', '*', '?', '??', '$1', ':name',
  '1e309', '-0', 'NaN', 'Infinity', '9223372036854775808', '0x10', '2025-02-30', '2025-13-01', '0000-00-00', '2025-01-01T25:61:00Z',
  'true', 'null', '[]', '{}', '\uD800', '\uFFFF', '🎉', 'İ', 'ß', ' '.repeat(300), 'x'.repeat(5000),
);

export const scalar: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  nasty,
  fc.integer(),
  fc.constantFrom(0, -1, 2 ** 31, 2 ** 53, -(2 ** 63), 1e308, -1e-308, 0.1, 123456789.123456789),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
  fc.constantFrom(...FIELDS),
);

export const value: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: scalar },
  { weight: 1, arbitrary: fc.array(scalar, { maxLength: 5 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), scalar, { maxKeys: 3 }) },
  { weight: 1, arbitrary: fc.record({ $field: fc.oneof(fc.constantFrom(...FIELDS), scalar) }) },
  { weight: 1, arbitrary: fc.record({ $cel: fc.oneof(fc.constantFrom(...CEL), fc.string({ maxLength: 20 })) }) },
);

const fieldName = fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...FIELDS) }, { weight: 1, arbitrary: fc.string({ maxLength: 12 }) }, { weight: 1, arbitrary: fc.constantFrom('a.name', 'x.id', '__proto__', 'constructor', '$and') });

/** A where/having condition: field tests, operators, $and/$or/$not, to a few levels. */
export const condition: fc.Arbitrary<unknown> = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.dictionary(fieldName, value, { minKeys: 1, maxKeys: 2 }),
    fc.dictionary(fieldName, fc.dictionary(fc.constantFrom(...OPERATORS), value, { minKeys: 1, maxKeys: 2 }), { minKeys: 1, maxKeys: 2 }),
    fc.record({ $and: fc.array(tie('node'), { maxLength: 3 }) }),
    fc.record({ $or: fc.array(tie('node'), { maxLength: 3 }) }),
    fc.record({ $not: tie('node') }),
    value,
  ),
})).node;

const sortList = fc.array(fc.tuple(fc.constantFrom('', '-', '+', ' '), fieldName), { maxLength: 4 }).map((items) => items.map(([sign, name]) => sign + name).join(','));
const nameList = fc.array(fieldName, { maxLength: 5 }).map((names) => names.join(','));
const number = fc.oneof(fc.integer({ min: -5, max: 300 }).map(String), fc.constantFrom('', '1.5', '-0', '1e3', '99999999999999999999', 'abc', '0x10', ' 5'));

const join = fc.record({
  type: fc.oneof(fc.constantFrom('inner', 'left', 'right', 'full'), fc.string({ maxLength: 6 })),
  object: fc.oneof(fc.constantFrom(...OBJECT_NAMES), fc.string({ maxLength: 8 })),
  as: fc.oneof(fc.constantFrom('a', 'b', 'acc', 'id', 'name'), fc.string({ maxLength: 6 })),
  on: fc.oneof(fc.constantFrom('account = a.id', 'contact = b.id', 'parent_account = a.id', 'id = a.id'), fc.string({ maxLength: 20 })),
}, { requiredKeys: [] });

const aggregation = fc.record({
  function: fc.oneof(fc.constantFrom(...AGGREGATES), scalar),
  field: fieldName,
  alias: fc.oneof(fc.constantFrom('n', 'total', 'x_1'), fc.string({ maxLength: 8 })),
}, { requiredKeys: [] });

/** A structured query (the body of POST /query, or the values of a query string before encoding). */
export const structuredQuery: fc.Arbitrary<Record<string, unknown>> = fc.record({
  where: condition,
  orderBy: fc.oneof(sortList, fc.array(fieldName, { maxLength: 3 }), value),
  select: fc.oneof(nameList, fc.array(fieldName, { maxLength: 4 }), value),
  expand: fc.oneof(fc.array(fc.constantFrom(...LOOKUPS, 'account.parent_account', 'nope'), { maxLength: 3 }).map((l) => l.join(',')), value),
  limit: fc.oneof(number, value),
  offset: fc.oneof(number, value),
  cursor: fc.oneof(fc.base64String({ maxLength: 40 }), fc.string({ maxLength: 30 }), fc.constantFrom('eyJ2IjoxfQ.c2ln', 'a.b', '.', '')),
  groupBy: fc.oneof(fc.array(fc.oneof(fieldName, fc.record({ field: fieldName, dateGranularity: fc.constantFrom('day', 'month', 'year', 'hour') })), { maxLength: 2 }), value),
  aggregations: fc.oneof(fc.array(aggregation, { maxLength: 3 }), value),
  having: condition,
  distinct: fc.oneof(fc.boolean(), value),
  joins: fc.oneof(fc.array(join, { maxLength: 2 }), value),
  junk: value,
}, { requiredKeys: [] });

/** A query string: the structured query's values as text, plus malformed encodings. */
export const queryString: fc.Arbitrary<string> = fc.tuple(
  structuredQuery,
  fc.array(fc.tuple(fc.constantFrom(...QUERY_KEYS, 'junk'), fc.string({ maxLength: 20 })), { maxLength: 2 }),
  fc.constantFrom('', '&%', '&%zz=1', '&where=%7B', '&limit=1&limit=2', '&=', '&&&'),
).map(([query, extra, tail]) => {
  const params = new URLSearchParams();
  for (const [key, v] of Object.entries(query)) params.append(key, typeof v === 'string' ? v : JSON.stringify(v) ?? '');
  for (const [key, v] of extra) params.append(key, v);
  return params.toString() + tail;
});

/** A record body for create or update: real and unknown fields with values of any type. */
export const recordBody: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 8, arbitrary: fc.dictionary(fieldName, value, { maxKeys: 8 }) },
  { weight: 1, arbitrary: fc.record({ expectedVersion: value, name: scalar }, { requiredKeys: [] }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

export const objectName = fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...OBJECT_NAMES) }, { weight: 1, arbitrary: fc.constantFrom('nope', 'sys_user', 'osr_sequence', 'Account', 'a'.repeat(70), '..', '%00') });

// Header values must be printable ASCII to be sent at all.
export const ifMatch = fc.oneof(fc.constant(undefined), fc.constantFrom('"1"', '1', 'W/"2"', '*', '"abc"', '"99999999999999999999"', '', '"-1"'), fc.string({ maxLength: 10 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')));
