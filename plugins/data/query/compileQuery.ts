import type { Knex } from 'knex';
import type { ResolvedObject } from '../../../metadata/types.ts';
import type { Dialect } from '../sql/dialect.ts';
import { dialectOf, qualified, quoteIdent, SQLITE_BUDGET } from '../sql/dialect.ts';
import type { ValueType } from '../sql/objectColumns.ts';
import { aggregationSql, bucketSql } from './aggregateSql.ts';
import { compileCondition, fieldSql } from './compileCondition.ts';
import { narrowScope } from './narrowScope.ts';
import { rollupFor, type RollupUse } from './rollupFor.ts';
import { ROLLUP_COUNT, rollupsOf } from '../sql/rollups.ts';
import { branchKeyCondition, partitionCount, partitionScope, type ScopePartition } from './partitionScope.ts';
import type { CursorPosition } from './cursor.ts';
import type { Sql } from './sql.ts';
import { joinSql, sql } from './sql.ts';
import type { Condition, FieldRef, QueryAst, ScopeFilter, SortKey } from './types.ts';

export interface CompileOptions {
  /** Row-level security: ANDed into the query, its count, every join target and expand query. */
  scopeFilter?: ScopeFilter;
  /** Keyset position from a verified cursor: rows strictly after it. */
  after?: CursorPosition | null;
  /** Rows to read (default ast.limit); the executor reads one more to learn whether a page follows. */
  fetch?: number;
  /**
   * Narrow the base object's scope by the where's equalities (default true; see narrowScope.ts).
   * Off for statements compiled once and run with other values (by-id plans).
   */
  narrow?: boolean;
  /**
   * SQLite: the time budget's end (epoch ms) of a costly query (queryCost.ts). Every statement then
   * tests `os_budget(deadline, <id of each table>)`, which SQLite evaluates for each row of the join
   * product and which throws once the deadline has passed (dialect.ts, SQLITE_BUDGET).
   */
  deadline?: number;
}

export interface CompiledQuery {
  /** The page: selected columns under their result keys, plus `__k<i>` sort values for keyset queries. */
  page: Knex.QueryBuilder;
  /** Same rows without limit, offset or cursor: `select count(*) as n`. */
  count(): Knex.QueryBuilder;
  /** What `count` counts, as one plain statement (never in parts): its identity for a carried total (cursor.ts). */
  countKey(): Knex.QueryBuilder;
  /** At most `cap + 1` of the same rows counted: a bounded count (an estimated total on SQLite). */
  countUpTo(cap: number): Knex.QueryBuilder;
  /** Type of each `__k<i>` value, for the next cursor. */
  sortKeyTypes: ValueType[];
}

/** Name of the i-th sort value column in keyset queries. */
export const sortKeyColumn = (i: number): string => `__k${i}`;

const JOIN_SQL = { inner: 'inner join', left: 'left join', right: 'right join', full: 'full outer join' } as const;

/** Compiles a parsed query to knex builders. Identifiers come from metadata, values are bound. */
export function compileQuery(ast: QueryAst, knex: Knex, options: CompileOptions = {}): CompiledQuery {
  const dialect = dialectOf(knex);
  const base = ast.object.name;
  const tableOf = (alias: string | null) => alias ?? base;
  const ctx = { dialect, tableOf };
  const scope = (object: ResolvedObject, table: string): Sql | null => scopeSql(options.scopeFilter, object, table, dialect);

  const fullCondition = options.scopeFilter?.(ast.object) ?? null;
  const fullScope = conditionSql(fullCondition, base, dialect);
  // Outer joins keep unmatched rows, so a scope must filter each table before joining, not after.
  const derived = fullScope !== null && ast.joins.some((j) => j.type === 'right' || j.type === 'full');
  // Filtering after the joins, the where's equalities hold for every row: the scope may be narrowed.
  const baseCondition = derived || options.narrow === false || !fullCondition || !ast.where ? fullCondition : narrowScope(fullCondition, ast.where);
  const baseScope = conditionSql(baseCondition, base, dialect);
  // Counts a materialized dataset keeps are read from its rollup table (rollupFor.ts, sql/rollups.ts).
  const rollup = rollupFor(ast, fullCondition, rollupsOf(knex, base));
  // A scoped aggregation grouped by a key the scope tests is read in parts (partitionScope.ts).
  const partition = ast.aggregate && !rollup && !derived && baseCondition ? partitionScope(baseCondition, ast.groupBy, ast.object) : null;

  // Naming a column of every table, the test runs where all are joined: once per row of the product.
  const budget = dialect === 'sqlite' && options.deadline !== undefined
    ? sql(`${SQLITE_BUDGET}(?, ${[qualified(base, 'id'), ...ast.joins.map((j) => qualified(j.alias, 'id'))].join(', ')})`, options.deadline)
    : null;
  const from = (rowScope: Sql | null = baseScope, keyFilter: Sql | null = null): Knex.QueryBuilder => {
    const qb = derived
      ? knex.queryBuilder().from(knex.raw(`(select * from ${quoteIdent(base)} where ${fullScope!.sql}) as ${quoteIdent(base)}`, bind(fullScope!.bindings)))
      : knex.queryBuilder().from(base);
    for (const join of ast.joins) {
      const joinScope = scope(join.object, join.object.name);
      const target = joinScope
        ? `(select * from ${quoteIdent(join.object.name)} where ${joinScope.sql}) as ${quoteIdent(join.alias)}`
        : `${quoteIdent(join.object.name)} as ${quoteIdent(join.alias)}`;
      qb.joinRaw(`${JOIN_SQL[join.type]} ${target} on ${fieldSql(join.local, ctx)} = ${fieldSql(join.foreign, ctx)}`, bind(joinScope?.bindings ?? []) as Knex.Value[]);
    }
    const filters: Sql[] = [];
    if (rowScope && !derived) filters.push(rowScope);
    if (keyFilter) filters.push(keyFilter);
    if (ast.where) filters.push(compileCondition(ast.where, ctx));
    if (budget) filters.push(budget);
    if (filters.length > 0) {
      const where = joinSql(filters, 'and');
      qb.whereRaw(`(${where.sql})`, bind(where.bindings));
    }
    return qb;
  };

  const sortExpr = (key: SortKey): string =>
    key.target.kind === 'output' ? quoteIdent(key.target.key) : sortColumn(key.target.ref, tableOf);
  const orderSql = (expr: string, direction: 'asc' | 'desc') =>
    // Nulls sort as the smallest value on both drivers.
    `${expr} ${direction} nulls ${direction === 'asc' ? 'first' : 'last'}`;

  const grouped = (rowScope: Sql | null, keyFilter: Sql | null): Knex.QueryBuilder => {
    const qb = from(rowScope, keyFilter);
    const groups = ast.groupBy.map((g) => {
      const column = fieldSql(g.ref, ctx);
      return { key: g.key, expr: g.granularity ? bucketSql(column, g.ref.type, g.granularity, dialect) : column };
    });
    const aggregates = new Map(ast.aggregations.map((a) => [a.alias, aggregationSql(a, a.ref ? fieldSql(a.ref, ctx) : null, dialect)]));
    const columns = [...groups.map((g) => `${g.expr} as ${quoteIdent(g.key)}`), ...[...aggregates].map(([alias, expr]) => `${expr} as ${quoteIdent(alias)}`)];
    qb.select(knex.raw(columns.join(', ')));
    // SQLite walks an index on a group key in order and then reads every row to test a scope
    // (owner, policy fields) the index does not hold: 100k row lookups, ten times a table scan.
    // `+column` keeps the key's value but not the index's order, so it scans and groups instead.
    const unordered = dialect === 'sqlite' && rowScope !== null;
    if (groups.length > 0) qb.groupByRaw(groups.map((g) => (unordered && g.expr.startsWith('"') ? `+${g.expr}` : g.expr)).join(', '));
    if (ast.having) {
      const having = compileCondition(ast.having, { ...ctx, aggregateSql: (alias) => aggregates.get(alias)! });
      qb.havingRaw(`(${having.sql})`, bind(having.bindings));
    }
    return qb;
  };

  // The parts of a partitioned aggregation, each with its own scope, as one union (every group
  // is in one part only); its output columns are the group keys and aggregations, as unsplit.
  const partitioned = (parts: ScopePartition): Knex.QueryBuilder => {
    const statements = parts.branches.map((branch) =>
      grouped(conditionSql(branch.scope, base, dialect), compileCondition(branchKeyCondition(parts.key, branch), ctx)).toSQL());
    const union = statements.map((s) => s.sql).join(' union all ');
    return knex.queryBuilder().select('*').from(knex.raw(`(${union}) as ${quoteIdent('q')}`, bind(statements.flatMap((s) => [...s.bindings]))));
  };

  // The rollup's rows under the same name as the object's table: the scope and where read its columns.
  const rolled = (use: RollupUse): Knex.QueryBuilder => {
    const qb = knex.queryBuilder().from(knex.raw(`${quoteIdent(use.rollup.table)} as ${quoteIdent(base)}`));
    const filters: Sql[] = [];
    if (use.scope) filters.push(compileCondition(use.scope, ctx));
    if (ast.where) filters.push(compileCondition(ast.where, ctx));
    if (filters.length > 0) {
      const where = joinSql(filters, 'and');
      qb.whereRaw(`(${where.sql})`, bind(where.bindings));
    }
    return qb;
  };
  const rolledCount = `coalesce(sum(${qualified(base, ROLLUP_COUNT)}), 0)`;
  // Group counts from the rollup: a combination whose rows sum to nothing has no rows in the table.
  const rolledGroups = (use: RollupUse): Knex.QueryBuilder => {
    const qb = rolled(use);
    const groups = ast.groupBy.map((g) => ({ key: g.key, expr: fieldSql(g.ref, ctx) }));
    const columns = [...groups.map((g) => `${g.expr} as ${quoteIdent(g.key)}`), ...ast.aggregations.map((a) => `${rolledCount} as ${quoteIdent(a.alias)}`)];
    qb.select(knex.raw(columns.join(', ')));
    if (groups.length > 0) qb.groupByRaw(groups.map((g) => g.expr).join(', '));
    const having: Sql[] = groups.length > 0 ? [sql(`sum(${qualified(base, ROLLUP_COUNT)}) <> 0`)] : [];
    if (ast.having) having.push(compileCondition(ast.having, { ...ctx, aggregateSql: () => rolledCount }));
    if (having.length > 0) {
      const joined = joinSql(having, 'and');
      qb.havingRaw(`(${joined.sql})`, bind(joined.bindings));
    }
    return qb;
  };

  const rows = (): Knex.QueryBuilder => {
    if (rollup && ast.aggregate) return rolledGroups(rollup);
    if (partition) return partitioned(partition);
    if (ast.aggregate) return grouped(baseScope, null);
    const qb = from();
    const columns = ast.select.map((s) => `${fieldSql(s.ref, ctx)} as ${quoteIdent(s.key)}`);
    if (ast.keyset) ast.orderBy.forEach((key, i) => columns.push(`${sortExpr(key)} as ${quoteIdent(sortKeyColumn(i))}`));
    if (ast.distinct) qb.distinct(knex.raw(columns.join(', ')));
    else qb.select(knex.raw(columns.join(', ')));
    return qb;
  };

  const order = ast.orderBy.map((key) => orderSql(sortExpr(key), key.direction));
  if (ast.aggregate) {
    // Remaining group keys make the order total, so pages do not overlap.
    for (const g of ast.groupBy) if (!ast.orderBy.some((k) => k.target.kind === 'output' && k.target.key === g.key)) order.push(orderSql(quoteIdent(g.key), 'asc'));
  } else if (ast.distinct) {
    for (const s of ast.select) if (!ast.orderBy.some((k) => k.target.kind === 'field' && sameRef(k.target.ref, s.ref))) order.push(orderSql(fieldSql(s.ref, ctx), 'asc'));
  } else {
    order.push(`${qualified(base, 'id')} asc`);
  }
  const fetch = options.fetch ?? ast.limit;
  const ordered = (filter: Sql | null): Knex.QueryBuilder => {
    const qb = rows();
    if (order.length > 0) qb.orderByRaw(order.join(', '));
    if (filter) qb.andWhereRaw(`(${filter.sql})`, bind(filter.bindings));
    // Inlined, not bound: the parser made it a small positive integer, and SQLite runs a bound LIMIT
    // several times slower than a literal one (it also keeps one prepared statement per page size).
    qb.limit(fetch, { skipBinding: true });
    return qb;
  };
  const after = options.after && ast.keyset
    ? keysetSql(ast.orderBy.map(sortExpr), ast.orderBy.map((k) => k.direction), options.after, qualified(base, 'id'), cursorValues(dialect, ast.orderBy[0]?.direction))
    : null;
  // Past a value in descending order come the smaller values, then every NULL (sorted last): two
  // index ranges, read as two ordered parts of a page each. One OR of both would be read from the
  // top of the index past every row before the cursor (a late page of 100k rows: 20-90 ms). Every
  // keyset page selects `id` (parseSelection.ts), which orders the merged parts last.
  const segmented = (keyset: KeysetSql): Knex.QueryBuilder => {
    const parts = [ordered(keyset.rest), ordered(keyset.nulls!)].map((part) => part.toSQL());
    const union = parts.map((part, i) => `select * from (${part.sql}) as ${quoteIdent(`p${i}`)}`).join(' union all ');
    const outer = ast.orderBy.map((key, i) => orderSql(quoteIdent(sortKeyColumn(i)), key.direction));
    return knex.queryBuilder().select('*')
      .from(knex.raw(`(${union}) as ${quoteIdent('q')}`, bind(parts.flatMap((part) => [...part.bindings]))))
      .orderByRaw([...outer, `${quoteIdent('id')} asc`].join(', '))
      .limit(fetch, { skipBinding: true });
  };
  const page = after?.nulls ? segmented(after) : ordered(after?.rest ?? null);
  if (ast.offset > 0) page.offset(ast.offset);

  const count = (): Knex.QueryBuilder => {
    if (!ast.aggregate && !ast.distinct) {
      if (rollup) return rolled(rollup).select(knex.raw(`${rolledCount} as n`));
      // Counted in parts when the scope tests a column that splits it (partitionCount).
      const parts = !derived && baseCondition ? partitionCount(baseCondition, ast.object) : null;
      if (!parts) return from().select(knex.raw('count(*) as n'));
      const statements = parts.branches.map((branch) =>
        from(conditionSql(branch.scope, base, dialect), compileCondition(branchKeyCondition(parts.key, branch), ctx)).select(knex.raw('count(*) as n')).toSQL());
      const union = statements.map((s) => s.sql).join(' union all ');
      return knex.queryBuilder().select(knex.raw('sum(n) as n')).from(knex.raw(`(${union}) as ${quoteIdent('q')}`, bind(statements.flatMap((s) => [...s.bindings]))));
    }
    return knex.queryBuilder().from(rows().as('q')).select(knex.raw('count(*) as n'));
  };

  const sortKeyTypes = ast.orderBy.map((k) => (k.target.kind === 'output' ? k.target.type : k.target.ref.seqColumn ? 'integer' : k.target.ref.type));
  const countKey = (): Knex.QueryBuilder => from().select(knex.raw('count(*) as n'));
  // From a rollup the exact count costs no more than a bounded one.
  const countUpTo = (cap: number): Knex.QueryBuilder => rollup && !ast.aggregate ? count() : knex.queryBuilder().from(from().select(knex.raw('1 as one')).limit(cap + 1).as('q')).select(knex.raw('count(*) as n'));
  return { page, count, countKey, countUpTo, sortKeyTypes };
}

/** Compiled scope conditions: a caller's scope is one condition object for as long as its grants hold. */
const compiledScopes = new WeakMap<Condition, Map<string, Sql>>();

/** The scope condition of an object, compiled against the table name it is read from. */
export function scopeSql(filter: ScopeFilter | undefined, object: ResolvedObject, table: string, dialect: Dialect): Sql | null {
  return conditionSql(filter?.(object) ?? null, table, dialect);
}

/** A scope condition compiled against a table name, once per condition object. */
function conditionSql(condition: Condition | null, table: string, dialect: Dialect): Sql | null {
  if (!condition) return null;
  let byTable = compiledScopes.get(condition);
  if (!byTable) compiledScopes.set(condition, (byTable = new Map()));
  const key = `${dialect}\u0000${table}`;
  let compiled = byTable.get(key);
  if (!compiled) byTable.set(key, (compiled = compileCondition(condition, { dialect, tableOf: () => table })));
  return compiled;
}

/** Values here were checked against metadata (or came from a signed cursor); knex only needs the type. */
function bind(bindings: unknown[]): readonly Knex.RawBinding[] {
  return bindings as readonly Knex.RawBinding[];
}

function sortColumn(ref: FieldRef, tableOf: (alias: string | null) => string): string {
  return qualified(tableOf(ref.alias), ref.seqColumn ?? ref.column);
}

function sameRef(a: FieldRef, b: FieldRef): boolean {
  return a.alias === b.alias && a.column === b.column;
}

/**
 * How a cursor's values are written: `lead` in the plain range on the first key, `value` in the
 * rest. SQLite (built with STAT4) plans a statement for the values bound to it, and for a cursor
 * page that goes wrong: near the end of a walk it sees few rows past the cursor and, under a row
 * scope `owner = ? OR status IN (...)`, reads both indexes (or the key's other index, skipping
 * through it) and sorts every match (11-40 ms) instead of walking the key's index for a page
 * (0.1 ms), on one page in ten. Inside `coalesce` the planner does not look at a value. Measured
 * on 100,000 rows with the bench's indexes, at 60 positions of a walk, as the admin, a row-policy
 * member, a filter and an owner: with every value in `coalesce` an ascending walk never left the
 * key's index, but a descending one nearly always did; a descending walk keeps its range value
 * visible (`+?`) and hides the rest, and never left it either. The comparisons are the same (a
 * bound value has no affinity, and neither has `coalesce` or unary plus).
 */
function cursorValues(dialect: Dialect, direction: 'asc' | 'desc' | undefined): { lead: string; value: string } {
  if (dialect !== 'sqlite') return { lead: '?', value: '?' };
  return { lead: direction === 'desc' ? '+?' : 'coalesce(?, null)', value: 'coalesce(?, null)' };
}

interface KeysetSql {
  /** The rows after the cursor; with `nulls`, only those whose first key is not NULL. */
  rest: Sql;
  /** Past a value of a descending first key: the rows whose first key is NULL, all after the cursor. */
  nulls: Sql | null;
}

/**
 * Rows strictly after the cursor in the order (keys..., id asc), with nulls smallest:
 * OR over i of (keys before i tie AND key i is past the cursor), then the id tie-break; values
 * written as `cursorValues` says.
 */
function keysetSql(exprs: string[], directions: Array<'asc' | 'desc'>, after: CursorPosition, idExpr: string, { lead, value }: { lead: string; value: string }): KeysetSql {
  const tie = (x: string, v: unknown): Sql => (v === null ? sql(`${x} is null`) : sql(`${x} = ${value}`, v));
  const past = (x: string, v: unknown, direction: 'asc' | 'desc'): Sql | null => {
    if (direction === 'asc') return v === null ? sql(`${x} is not null`) : sql(`${x} > ${value}`, v);
    return v === null ? null : sql(`${x} < ${value} or ${x} is null`, v);
  };
  const branches: Sql[] = [];
  for (let i = 0; i <= exprs.length; i++) {
    const ties = exprs.slice(0, i).map((x, j) => tie(x, after.values[j] ?? null));
    const step = i < exprs.length ? past(exprs[i]!, after.values[i] ?? null, directions[i]!) : sql(`${idExpr} > ${value}`, after.id);
    if (step) branches.push(joinSql([...ties, step], 'and'));
  }
  const rest = joinSql(branches, 'or');
  // Implied by the branches, but a plain range the planner can start an index scan from: past a
  // non-null value, every row has a key at least (ascending) or at most (descending) that value,
  // or in descending order a NULL key, which the caller reads as a part of its own.
  const first = after.values[0] ?? null;
  if (exprs.length === 0 || first === null) return { rest, nulls: null };
  if (directions[0] === 'asc') return { rest: joinSql([sql(`${exprs[0]} >= ${lead}`, first), rest], 'and'), nulls: null };
  return { rest: joinSql([sql(`${exprs[0]} <= ${lead}`, first), rest], 'and'), nulls: sql(`${exprs[0]} is null`) };
}

/**
 * The select list of a plain query of one object (no joins, aggregation or keyset), as a write's
 * `returning` clause: the written row then decodes as `recordDecoder(ast)` decodes the read's.
 */
export function returningColumns(ast: QueryAst): string {
  const tableOf = (alias: string | null) => alias ?? ast.object.name;
  return ast.select.map((s) => `${fieldSql(s.ref, { tableOf })} as ${quoteIdent(s.key)}`).join(', ');
}
