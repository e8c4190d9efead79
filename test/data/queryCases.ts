/**
 * The query table: each case runs identically on SQLite and PostgreSQL against the rows of
 * seed.ts, and must return exactly these rows, in this order.
 */
export interface QueryCase {
  name: string;
  object?: 'contact' | 'account';
  query: Record<string, unknown>;
  /** Expected ids, in order. */
  ids?: string[];
  /** Expected items (after `pick`), in order. */
  rows?: unknown[];
  pick?: (item: Record<string, unknown>) => unknown;
  total?: number;
  /** Cursor walk: ids of each page, following nextCursor until it is null. */
  pages?: string[][];
}

const ALL = ['c01', 'c02', 'c03', 'c04', 'c05', 'c06', 'c07', 'c08'];
const NOW = '2026-03-15T00:00:00.000Z';
export const QUERY_NOW = new Date(NOW);
const withAccount = (item: Record<string, unknown>) => [item.id, (item.a as { name?: string } | null)?.name ?? null];
const join = (type: string) => ({ type, object: 'account', as: 'a', on: 'account = a.id' });

export const QUERY_CASES: QueryCase[] = [
  // Comparison.
  { name: 'bare value means $eq', query: { where: { name: 'Dave' } }, ids: ['c04'] },
  { name: '$eq', query: { where: { priority: { $eq: 2 } } }, ids: ['c02', 'c06', 'c08'] },
  { name: '$ne keeps nulls', query: { where: { priority: { $ne: 2 } } }, ids: ['c01', 'c03', 'c04', 'c05', 'c07'] },
  { name: '$gt', query: { where: { score: { $gt: 7 } } }, ids: ['c01', 'c05', 'c06'] },
  { name: '$gte', query: { where: { score: { $gte: 7 } } }, ids: ['c01', 'c02', 'c05', 'c06', 'c08'] },
  { name: '$lt', query: { where: { score: { $lt: 7 } } }, ids: ['c04', 'c07'] },
  { name: '$lte', query: { where: { priority: { $lte: 1 } } }, ids: ['c01', 'c04'] },
  { name: 'two operators on one field', query: { where: { score: { $gt: 5, $lt: 9 } } }, ids: ['c02', 'c05', 'c07', 'c08'] },
  { name: '$field: cross-field comparison', query: { where: { score: { $gt: { $field: 'priority' } } } }, ids: ['c01', 'c02', 'c04', 'c06', 'c07', 'c08'] },
  { name: '$eq null is null', query: { where: { account: null } }, ids: ['c04'] },
  { name: '$ne null is not null', query: { where: { email: { $ne: null } } }, ids: ['c01', 'c02', 'c03', 'c05', 'c06', 'c07', 'c08'] },
  { name: 'datetime with an offset', query: { where: { last_seen: { $gte: '2026-03-09T00:30:00+01:00' } } }, ids: ['c02', 'c07', 'c08'] },
  { name: 'date $lt', query: { where: { birthday: { $lt: '1986-01-01' } } }, ids: ['c02', 'c06'] },
  // Set and range.
  { name: '$in', query: { where: { priority: { $in: [1, 3] } } }, ids: ['c01', 'c03', 'c04', 'c07'] },
  { name: '$nin keeps nulls', query: { where: { priority: { $nin: [1, 3] } } }, ids: ['c02', 'c05', 'c06', 'c08'] },
  { name: '$in [] matches nothing', query: { where: { priority: { $in: [] } } }, ids: [] },
  { name: '$nin [] matches everything', query: { where: { priority: { $nin: [] } } }, ids: ALL },
  { name: '$between numbers (inclusive)', query: { where: { score: { $between: [6, 8] } } }, ids: ['c02', 'c05', 'c07', 'c08'] },
  { name: '$between dates', query: { where: { birthday: { $between: ['1985-01-01', '1992-12-31'] } } }, ids: ['c01', 'c02', 'c04', 'c08'] },
  { name: '$between datetimes', query: { where: { last_seen: { $between: ['2026-03-01T00:00:00Z', '2026-03-31T23:59:59.999Z'] } } }, ids: ['c01', 'c02', 'c07'] },
  // String.
  { name: '$contains is case-insensitive', query: { where: { name: { $contains: 'SMITH' } } }, ids: ['c01', 'c03'] },
  { name: '$contains folds Unicode case', query: { where: { name: { $contains: 'éVA' } } }, ids: ['c05'] },
  { name: '$contains escapes %', query: { where: { notes: { $contains: '%' } } }, ids: ['c01'] },
  { name: '$contains escapes _', query: { where: { notes: { $contains: '_' } } }, ids: ['c04'] },
  { name: '$notContains keeps nulls', query: { where: { notes: { $notContains: 'e' } } }, ids: ['c03', 'c06', 'c07', 'c08'] },
  { name: '$startsWith', query: { where: { name: { $startsWith: 'al' } } }, ids: ['c01'] },
  { name: '$endsWith', query: { where: { email: { $endsWith: '@acme.test' } } }, ids: ['c01', 'c05', 'c08'] },
  // Null and existence.
  { name: '$null true', query: { where: { email: { $null: true } } }, ids: ['c04'] },
  { name: '$null false', query: { where: { score: { $null: false } } }, ids: ['c01', 'c02', 'c04', 'c05', 'c06', 'c07', 'c08'] },
  { name: '$exists false', query: { where: { score: { $exists: false } } }, ids: ['c03'] },
  { name: '$exists true', query: { where: { last_seen: { $exists: true }, priority: 3 } }, ids: ['c03', 'c07'] },
  // Logical.
  { name: '$and', query: { where: { $and: [{ priority: 2 }, { score: { $gte: 9 } }] } }, ids: ['c06'] },
  { name: '$or', query: { where: { $or: [{ priority: 1 }, { score: { $gte: 9 } }] } }, ids: ['c01', 'c04', 'c06'] },
  { name: '$not keeps nulls', query: { where: { $not: { priority: 2 } } }, ids: ['c01', 'c03', 'c04', 'c05', 'c07'] },
  { name: '$not of $or', query: { where: { $not: { $or: [{ priority: 1 }, { score: { $gte: 9 } }] } } }, ids: ['c02', 'c03', 'c05', 'c07', 'c08'] },
  {
    name: 'nested $or / $and / $not',
    query: { where: { $or: [{ $and: [{ priority: { $gte: 2 } }, { $not: { name: { $contains: 'o' } } }] }, { account: null }] } },
    ids: ['c04', 'c06', 'c07', 'c08'],
  },
  // Expressions.
  { name: '$cel now()', query: { where: { last_seen: { $lt: { $cel: 'now()' } } } }, ids: ['c01', 'c02', 'c03', 'c04', 'c06'] },
  { name: '$cel on a date field', query: { where: { last_seen: { $gte: { $cel: 'addDays(today(), -7)' } } } }, ids: ['c02', 'c07', 'c08'] },
  { name: '$cel in $between', query: { where: { birthday: { $between: [{ $cel: 'addMonths(today(), -12 * 40)' }, '1990-12-31'] } } }, ids: ['c01', 'c08'] },
  // Other types (accounts).
  { name: 'boolean $eq', object: 'account', query: { where: { active: true } }, ids: ['a1', 'a3'] },
  { name: 'boolean $ne keeps nulls', object: 'account', query: { where: { active: { $ne: true } } }, ids: ['a2', 'a4', 'a5'] },
  { name: 'multiselect $contains', object: 'account', query: { where: { tags: { $contains: 'blue' } } }, ids: ['a1', 'a2'] },
  { name: 'multiselect $notContains', object: 'account', query: { where: { tags: { $notContains: 'blue' } } }, ids: ['a3', 'a4', 'a5'] },
  { name: 'json $null', object: 'account', query: { where: { meta: { $null: true } } }, ids: ['a2', 'a3', 'a5'] },
  { name: 'currency $gte', object: 'account', query: { where: { revenue: { $gte: 1000.5 } } }, ids: ['a1', 'a2'] },
  { name: 'autonumber $eq', object: 'account', query: { where: { code: 'ACC-002' } }, ids: ['a2'] },
  { name: 'autonumber sorts by its sequence', object: 'account', query: { orderBy: '-code', limit: 2 }, ids: ['a5', 'a4'] },
  // Sorting.
  { name: 'orderBy shorthand -priority,name', query: { orderBy: '-priority,name' }, ids: ['c07', 'c03', 'c02', 'c06', 'c08', 'c01', 'c04', 'c05'] },
  { name: 'asc puts nulls first, ties by id', query: { orderBy: [{ field: 'score', order: 'asc' }] }, ids: ['c03', 'c04', 'c07', 'c02', 'c08', 'c05', 'c01', 'c06'] },
  { name: 'desc puts nulls last', query: { orderBy: [{ field: 'score', order: 'desc' }] }, ids: ['c01', 'c06', 'c05', 'c02', 'c08', 'c07', 'c04', 'c03'] },
  { name: 'text sorts by code point', query: { orderBy: ['name'] }, ids: ['c01', 'c02', 'c04', 'c06', 'c07', 'c08', 'c03', 'c05'] },
  // Pagination.
  { name: 'offset pagination with total', query: { orderBy: 'name', limit: 3, offset: 2 }, ids: ['c04', 'c06', 'c07'], total: 8 },
  { name: 'total ignores limit', query: { where: { priority: 2 }, limit: 1 }, ids: ['c02'], total: 3 },
  { name: 'cursor walk, desc with nulls', query: { orderBy: '-score', limit: 3 }, pages: [['c01', 'c06', 'c05'], ['c02', 'c08', 'c07'], ['c04', 'c03']] },
  { name: 'cursor walk, asc with nulls', query: { orderBy: 'score', limit: 3 }, pages: [['c03', 'c04', 'c07'], ['c02', 'c08', 'c05'], ['c01', 'c06']] },
  { name: 'cursor walk, two keys', query: { orderBy: '-priority,name', limit: 3 }, pages: [['c07', 'c03', 'c02'], ['c06', 'c08', 'c01'], ['c04', 'c05']] },
  { name: 'cursor walk, default order (id)', query: { where: { priority: { $ne: 1 } }, limit: 4 }, pages: [['c02', 'c03', 'c05', 'c06'], ['c07', 'c08']] },
  { name: 'cursor walk over a joined sort key', query: { joins: [join('left')], orderBy: 'a.name', limit: 3 }, pages: [['c04', 'c08', 'c01'], ['c03', 'c02', 'c07'], ['c05', 'c06']] },
  { name: 'cursor walk on datetime', query: { orderBy: '-last_seen', limit: 5 }, pages: [['c08', 'c07', 'c02', 'c01', 'c03'], ['c04', 'c06', 'c05']] },
  // Projection.
  { name: 'fields: projection keeps id', query: { fields: ['name'], where: { id: 'c04' } }, rows: [{ id: 'c04', name: 'Dave' }] },
  { name: 'select as a comma list with a formula', query: { select: 'name,label', where: { id: { $in: ['c04', 'c01'] } } }, rows: [{ id: 'c01', name: 'Alice Smith', label: 'Alice Smith <alice@acme.test>' }, { id: 'c04', name: 'Dave', label: 'Dave <->' }] },
  { name: 'distinct', query: { fields: ['priority'], distinct: true }, rows: [{ priority: null }, { priority: 1 }, { priority: 2 }, { priority: 3 }] },
  { name: 'distinct over a joined field', query: { joins: [join('left')], fields: ['a.industry'], distinct: true, orderBy: '-a.industry' }, rows: [{ a: { industry: 'tech' } }, { a: { industry: 'health' } }, { a: { industry: 'finance' } }, { a: null }] },
  // Expand.
  {
    name: 'expand replaces the id with the record; dangling -> null',
    query: { where: { id: { $in: ['c04', 'c05', 'c08'] } }, expand: ['account'] },
    rows: [['c04', null], ['c05', 'Initech'], ['c08', null]],
    pick: (i) => [i.id, (i.account as { name?: string } | null)?.name ?? null],
  },
  {
    name: 'expand nested (dotted path)',
    query: { where: { id: { $in: ['c01', 'c02', 'c06'] } }, expand: 'account.parent', fields: ['name'] },
    rows: [['c01', 'Acme', null], ['c02', 'Globex', 'Acme'], ['c06', 'Umbrella_Corp', 'Globex']],
    pick: (i) => {
      const a = i.account as { name: string; parent: { name: string } | null };
      return [i.id, a.name, a.parent?.name ?? null];
    },
  },
  // Joins.
  { name: 'inner join, where on the alias', query: { joins: [join('inner')], where: { 'a.industry': 'tech' }, fields: ['a.name'] }, rows: [['c01', 'Acme'], ['c03', 'Acme'], ['c05', 'Initech']], pick: withAccount },
  { name: 'left join keeps unmatched rows', query: { joins: [join('left')], fields: ['a.name'] }, rows: [['c01', 'Acme'], ['c02', 'Globex'], ['c03', 'Acme'], ['c04', null], ['c05', 'Initech'], ['c06', 'Umbrella_Corp'], ['c07', 'Globex'], ['c08', null]], pick: withAccount, total: 8 },
  { name: 'right join keeps unmatched join rows', query: { joins: [join('right')], fields: ['a.name'], orderBy: 'a.name' }, rows: [['c01', 'Acme'], ['c03', 'Acme'], ['c02', 'Globex'], ['c07', 'Globex'], ['c05', 'Initech'], ['c06', 'Umbrella_Corp'], [null, 'Zeta']], pick: withAccount, total: 7 },
  { name: 'full join keeps both sides', query: { joins: [join('full')], fields: ['a.name'], orderBy: 'a.name' }, rows: [['c04', null], ['c08', null], ['c01', 'Acme'], ['c03', 'Acme'], ['c02', 'Globex'], ['c07', 'Globex'], ['c05', 'Initech'], ['c06', 'Umbrella_Corp'], [null, 'Zeta']], pick: withAccount, total: 9 },
  { name: 'join aggregation by alias field', query: { joins: [join('left')], groupBy: ['a.industry'], aggregations: [{ function: 'count', alias: 'n' }] }, rows: [{ 'a.industry': null, n: 2 }, { 'a.industry': 'finance', n: 2 }, { 'a.industry': 'health', n: 1 }, { 'a.industry': 'tech', n: 3 }], total: 4 },
  // Group by and aggregations.
  { name: 'groupBy a field', query: { groupBy: ['priority'], aggregations: [{ function: 'count', alias: 'n' }] }, rows: [{ priority: null, n: 1 }, { priority: 1, n: 2 }, { priority: 2, n: 3 }, { priority: 3, n: 2 }] },
  { name: 'groupBy day', query: { groupBy: [{ field: 'last_seen', dateGranularity: 'day' }], aggregations: [{ function: 'count', alias: 'n' }], limit: 3 }, rows: [{ last_seen: null, n: 1 }, { last_seen: '2025-12-29', n: 1 }, { last_seen: '2026-01-05', n: 1 }], total: 8 },
  {
    name: 'groupBy ISO week (Monday)',
    query: { groupBy: [{ field: 'last_seen', dateGranularity: 'week' }], aggregations: [{ function: 'count', alias: 'n' }] },
    rows: [{ last_seen: null, n: 1 }, { last_seen: '2025-12-29', n: 1 }, { last_seen: '2026-01-05', n: 1 }, { last_seen: '2026-02-23', n: 1 }, { last_seen: '2026-03-02', n: 2 }, { last_seen: '2026-03-30', n: 2 }],
  },
  {
    name: 'groupBy month',
    query: { groupBy: [{ field: 'last_seen', dateGranularity: 'month' }], aggregations: [{ function: 'count', alias: 'n' }] },
    rows: [{ last_seen: null, n: 1 }, { last_seen: '2025-12-01', n: 1 }, { last_seen: '2026-01-01', n: 1 }, { last_seen: '2026-02-01', n: 1 }, { last_seen: '2026-03-01', n: 3 }, { last_seen: '2026-04-01', n: 1 }],
  },
  {
    name: 'groupBy quarter',
    query: { groupBy: [{ field: 'last_seen', dateGranularity: 'quarter' }], aggregations: [{ function: 'count', alias: 'n' }] },
    rows: [{ last_seen: null, n: 1 }, { last_seen: '2025-10-01', n: 1 }, { last_seen: '2026-01-01', n: 5 }, { last_seen: '2026-04-01', n: 1 }],
  },
  { name: 'groupBy year', query: { groupBy: [{ field: 'last_seen', dateGranularity: 'year' }], aggregations: [{ function: 'count', alias: 'n' }] }, rows: [{ last_seen: null, n: 1 }, { last_seen: '2025-01-01', n: 1 }, { last_seen: '2026-01-01', n: 6 }] },
  {
    name: 'groupBy quarter of a date field',
    query: { groupBy: [{ field: 'birthday', dateGranularity: 'quarter' }], aggregations: [{ function: 'count', alias: 'n' }], orderBy: '-birthday', limit: 4 },
    rows: [{ birthday: '2000-01-01', n: 1 }, { birthday: '1995-07-01', n: 1 }, { birthday: '1992-10-01', n: 1 }, { birthday: '1990-01-01', n: 1 }],
  },
  {
    name: 'every aggregation, no groupBy',
    query: {
      aggregations: [
        { function: 'count', alias: 'n' },
        { function: 'count', field: 'score', alias: 'scored' },
        { function: 'sum', field: 'score', alias: 'sum' },
        { function: 'avg', field: 'priority', alias: 'avg' },
        { function: 'min', field: 'score', alias: 'min' },
        { function: 'max', field: 'last_seen', alias: 'latest' },
        { function: 'min', field: 'birthday', alias: 'oldest' },
        { function: 'count_distinct', field: 'priority', alias: 'priorities' },
        { function: 'array_agg', field: 'priority', alias: 'all' },
        { function: 'string_agg', field: 'name', alias: 'names' },
      ],
    },
    rows: [{ n: 8, scored: 7, sum: 51.25, avg: 2, min: 4.25, latest: '2026-04-01T00:00:00.000Z', oldest: '1979-05-20', priorities: 3, all: [1, 1, 2, 2, 2, 3, 3], names: 'Alice Smith,Bob Jones,Dave,Frank,Grace,Heidi,carol smith,Éva Szabó' }],
    total: 1,
  },
  {
    name: 'array_agg keeps the field type',
    object: 'account',
    query: { aggregations: [{ function: 'array_agg', field: 'active', alias: 'active' }, { function: 'array_agg', field: 'founded', alias: 'founded' }, { function: 'sum', field: 'revenue', alias: 'revenue' }, { function: 'max', field: 'revenue', alias: 'top' }] },
    rows: [{ active: [false, false, true, true], founded: ['2019-06-30', '2020-01-15', '2021-12-31', '2026-03-01'], revenue: 3800.75, top: 2500 }],
  },
  { name: 'having on a count', query: { groupBy: ['account'], aggregations: [{ function: 'count', alias: 'n' }], having: { n: { $gte: 2 } } }, rows: [{ account: 'a1', n: 2 }, { account: 'a2', n: 2 }], total: 2 },
  { name: 'having on a sum', query: { groupBy: ['priority'], aggregations: [{ function: 'sum', field: 'score', alias: 'total' }], having: { total: { $gt: 10 } } }, rows: [{ priority: 1, total: 13.75 }, { priority: 2, total: 23.5 }] },
  { name: 'having on a group field', query: { groupBy: ['priority'], aggregations: [{ function: 'count', alias: 'n' }], having: { priority: { $in: [1, 3] } } }, rows: [{ priority: 1, n: 2 }, { priority: 3, n: 2 }] },
  {
    name: 'sort on an aggregation alias',
    query: { groupBy: ['account'], aggregations: [{ function: 'count', alias: 'n' }], orderBy: '-n' },
    rows: [{ account: 'a1', n: 2 }, { account: 'a2', n: 2 }, { account: null, n: 1 }, { account: 'a3', n: 1 }, { account: 'a4', n: 1 }, { account: 'a9', n: 1 }],
  },
  { name: 'aggregate offset', query: { groupBy: ['priority'], aggregations: [{ function: 'max', field: 'name', alias: 'last' }], limit: 2, offset: 1 }, rows: [{ priority: 1, last: 'Dave' }, { priority: 2, last: 'Heidi' }], total: 4 },
];
