import type { Knex } from 'knex';
import type { ExpressionContext } from '../../../metadata/types.ts';
import { decodeValue } from '../sql/codec.ts';
import type { Dialect } from '../sql/dialect.ts';
import { dialectOf } from '../sql/dialect.ts';
import { runCancellable, runNative, type NativeStatement } from '../sql/runNative.ts';
import { directReader, formatBinding } from '../sql/sqliteReader.ts';
import type { ReadWorkers } from '../sql/sqliteReadWorkers.ts';
import { compileQuery, sortKeyColumn } from './compileQuery.ts';
import { COUNT_CAP } from './countCap.ts';
import type { CountReader } from './countCache.ts';
import { computeFormulas } from './computeFormulas.ts';
import { countIdentity, decodeCursor, encodeCursor, queryShape, type CursorPosition } from './cursor.ts';
import { expandRecords } from './expandRecords.ts';
import type { ListPlan } from './listPlans.ts';
import { groupKeyType } from './parseAggregation.ts';
import type { AggregationNode, ListResult, QueryAst, ScopeFilter } from './types.ts';

export interface ExecuteOptions {
  /** HMAC key that signs cursors (per environment). */
  cursorKey: string | Buffer;
  scopeFilter?: ScopeFilter;
  /**
   * Count the matching rows (default true); `'estimated'` bounds the count (estimate below; never
   * with `plan` or `statement`); `'capped'` counts at most COUNT_CAP + 1 matches (countCap.ts).
   */
  total?: boolean | 'estimated' | 'capped';
  /** Clock and user for formulas. */
  cel?: ExpressionContext;
  /** Totals, and the rows of a planned list's first page or planned read by id, remembered until the next write (see countCache.ts). */
  counts?: CountReader;
  /** Set here when the page was answered from `counts` (its statement did not run). */
  served?: { remembered: boolean };
  /** The page already compiled and bound: a planned by-id read (byIdPlans.ts; needs total: false), or a planned cursor page with `plan` (cursorPages.ts). */
  statement?: NativeStatement;
  /** The query already compiled (a planned list query, see listPlans.ts); after a cursor, with `after` and its page in `statement`. */
  plan?: ListPlan;
  /** The cursor, already decoded (a planned cursor page); otherwise `ast.cursor` is decoded here. */
  after?: CursorPosition;
  /** A costly query (queryCost.ts), not planned: the end of its time budget (epoch ms), tested in its SQLite statements. */
  deadline?: number;
  /** SQLite: run the page and count (planned or not) in these read workers, off the main thread, with `workersDeadline`. */
  workers?: ReadWorkers;
  /** The end of a pooled read's time (epoch ms): past it, and a grace period, its worker is replaced and the read answers QUERY_TOO_COSTLY. Default `deadline`. */
  workersDeadline?: number;
  /** A costly query: aborted when its client goes away, which cancels the page and count in flight. */
  signal?: AbortSignal;
  /** With `workers`: adds the time the workers spent running this query's statements (ms). */
  timing?: { ms: number };
}

/** Runs a parsed query: `{ items, total, nextCursor }`, nextCursor null on the last page. */
export async function executeQuery(ast: QueryAst, knex: Knex, options: ExecuteOptions): Promise<ListResult> {
  const dialect = dialectOf(knex);
  // Hashing the shape is only needed to check a cursor or to sign the next one.
  const { plan } = options;
  let shape: string | null = null;
  const shapeOf = () => (shape ??= plan ? (plan.shape ??= queryShape(ast)) : queryShape(ast));
  const after = options.after ?? (ast.cursor !== null ? decodeCursor(ast.cursor, ast.keyset ? shapeOf() : '', ast.orderBy.length, options.cursorKey) : null);
  const compiled = options.statement || plan ? null : compileQuery(ast, knex, { scopeFilter: options.scopeFilter, after, fetch: ast.limit + 1, ...(options.deadline !== undefined ? { deadline: options.deadline } : {}) });
  const reader = directReader(knex);
  const { workers, signal } = options;
  const inWorker = (sql: string, bindings: readonly unknown[]): Promise<Rows> => {
    if (knex.listenerCount('query') > 0) knex.emit('query', { sql, bindings, method: 'select' });
    // A costly statement tests its deadline (os_budget) and ends when its worker is terminated; any other finishes.
    return workers!.read({ sql, bindings: bindings.map(formatBinding), ...(options.timing ? { timing: options.timing } : {}) }, options.workersDeadline ?? options.deadline!, signal, options.deadline !== undefined ? 'terminate' : 'finish');
  };
  const native = (statement: NativeStatement): Rows | Promise<Rows> => (workers ? inWorker(statement.sql, statement.bindings) : runNative(knex, statement));
  const run = (query: Knex.QueryBuilder): Rows | Promise<Rows> => {
    if (workers) {
      const { sql, bindings } = query.toSQL();
      return inWorker(sql, bindings);
    }
    if (signal && dialect === 'postgres') {
      const { sql, bindings } = query.toSQL().toNative();
      return runCancellable(knex, { sql, bindings: [...bindings] }, signal);
    }
    return reader ? reader(query) : query;
  };
  const keysOf = (planned: ListPlan) => (planned.keys ??= { page: statementKey(planned.page), count: statementKey(planned.count), countCapped: statementKey(planned.countCapped) });
  let fromMemory = false;
  /** A page remembered under `key` (countCache.ts), or read and kept; `record`: a read by id's. */
  const remembered = (key: string, counts: CountReader, read: () => Rows | Promise<Rows>, record = false): Rows | Promise<Rows> => {
    const known = counts.page(key, record);
    if (known) {
      fromMemory = true;
      return known as Rows;
    }
    const rows = read();
    if (Array.isArray(rows)) {
      counts.keepPage(key, rows, record);
      return rows;
    }
    return rows.then((read) => {
      counts.keepPage(key, read, record);
      return read;
    });
  };
  // The SQLite file reader answers synchronously: its rows are taken without awaiting. Remembered
  // (with `counts`): a planned list's first page (aggregations and distinct reads included), an
  // unplanned aggregation's or distinct read's (a scan each time), and a planned read by id (the
  // engine passes `counts` for one on PostgreSQL only). A page after a cursor is not.
  const page = () => {
    const { counts, statement } = options;
    if (statement) return counts && !plan ? remembered(counts.recordKey(statement.sql, statement.bindings), counts, () => native(statement), true) : native(statement);
    if (plan) return counts ? remembered(keysOf(plan).page, counts, () => native(plan.page)) : native(plan.page);
    if (counts && (ast.aggregate || ast.distinct)) return remembered(statementKey(compiled!.page.toSQL()), counts, () => run(compiled!.page));
    return run(compiled!.page);
  };
  // Where PostgreSQL totals are not remembered (countCache.ts), a cursor walk still counts once: its
  // first page signs the total into the cursor with the hash of the count statement, scope and
  // bindings included, and later pages of the same count answer it (a cursor handed to a caller
  // of another scope counts afresh).
  let countHash: string | null = null;
  const hashOfCount = () => (countHash ??= plan ? plan.countKey : countIdentity(compiled!.countKey().toSQL().toNative()));
  const estimated = options.total === 'estimated';
  // Groups and distinct rows are counted exactly whatever was asked (their page is read first).
  const capped = options.total === 'capped' && !ast.aggregate && !ast.distinct;
  // A capped count carried in a cursor answers only capped counts of the same walk, and an exact one only exact.
  const carriedIdentity = () => (capped ? `${hashOfCount()}\u0000capped` : hashOfCount());
  let counted: number | undefined;
  const carries = dialect === 'postgres' && ast.keyset && !estimated;
  /** The exact count, or with `capped` at most COUNT_CAP + 1 matches; remembered with `counts`. */
  const count = async () => {
    if (carries && after?.total && after.total.count === carriedIdentity()) return after.total.n;
    const statement = plan ? null : capped ? compiled!.countUpTo(COUNT_CAP) : compiled!.count();
    const planned = plan ? (capped ? plan.countCapped : plan.count) : null;
    const countNow = async (): Promise<number> => Number((await (statement ? run(statement) : native(planned!)))[0]?.n ?? 0);
    if (!options.counts) return countNow();
    const key = statement ? statementKey(statement.toSQL()) : capped ? keysOf(plan!).countCapped : keysOf(plan!).count;
    const known = options.counts.get(key);
    if (known !== undefined) return known;
    const total = await countNow();
    options.counts.set(key, total);
    return total;
  };
  let rows: Rows;
  let total: number | undefined;
  let totalEstimated = false;
  let totalCapped = false;
  /** A bounded count: exact up to COUNT_CAP matches; beyond, the planner's estimate (PostgreSQL) or the bound (SQLite). */
  const estimate = async (): Promise<number> => {
    const bounded = Number((await run(compiled!.countUpTo(COUNT_CAP)))[0]?.n ?? 0);
    if (bounded <= COUNT_CAP) return bounded;
    totalEstimated = true;
    if (dialect !== 'postgres') return COUNT_CAP;
    const { sql, bindings } = compiled!.countKey().toSQL().toNative();
    const planned = await runNative(knex, { sql: `explain (format json) ${sql}`, bindings: [...bindings] });
    return Math.max(COUNT_CAP, plannedRows(planned[0]));
  };
  // Counting groups or distinct rows repeats the whole query: read the page first, and count only
  // when it may not hold every matching row.
  if (options.total !== false && (ast.aggregate || ast.distinct)) {
    rows = await page();
    const complete = ast.cursor === null && ast.offset === 0 && rows.length <= ast.limit;
    total = complete ? rows.length : await count();
  } else if (options.total === false) {
    const read = page();
    rows = Array.isArray(read) ? read : await read;
  } else if (estimated) {
    [rows, total] = await Promise.all([page(), estimate()]);
  } else if (capped) {
    [rows, counted] = await Promise.all([page(), count()]);
    totalCapped = counted > COUNT_CAP;
    total = totalCapped ? COUNT_CAP : counted;
  } else {
    [rows, total] = await Promise.all([page(), count()]);
  }
  const more = rows.length > ast.limit;
  const pageRows = more ? rows.slice(0, ast.limit) : rows;

  let nextCursor: string | null = null;
  const sortKeyTypes = compiled?.sortKeyTypes ?? plan?.sortKeyTypes;
  if (more && ast.keyset && sortKeyTypes) {
    const last = pageRows[pageRows.length - 1]!;
    const values = sortKeyTypes.map((type, i) => decodeValue(type, last[sortKeyColumn(i)], dialect));
    const carried = carries && total !== undefined ? { total: { n: counted ?? total, count: carriedIdentity() } } : {};
    nextCursor = encodeCursor({ values, id: String(last.id), ...carried }, shapeOf(), options.cursorKey);
  }
  if (options.served) options.served.remembered = fromMemory;
  const items = ast.aggregate
    ? pageRows.map((row) => decodeGroup(ast, row, dialect))
    : fromMemory && plainColumns(ast) ? decodedOnce(rows, pageRows, ast, dialect) : pageRows.map(recordDecoder(ast, dialect, options.cel));
  if (ast.expand.length > 0) {
    await expandRecords(items, ast.expand, knex, { dialect, ...(options.scopeFilter ? { scopeFilter: options.scopeFilter } : {}), ...(options.cel ? { cel: options.cel } : {}) });
  }
  if (total === undefined) return { items, nextCursor };
  if (totalCapped) return { items, total, totalCapped: true, nextCursor };
  return totalEstimated ? { items, total, totalEstimated: true, nextCursor } : { items, total, nextCursor };
}

/** A statement's key in the count cache: its SQL and bindings. */
function statementKey(statement: { sql: string; bindings: readonly unknown[] }): string {
  return `${statement.sql}\u0000${JSON.stringify(statement.bindings)}`;
}

/** The rows PostgreSQL's planner expects a count to read: the input of its aggregate. */
function plannedRows(row: Record<string, unknown> | undefined): number {
  const raw = row?.['QUERY PLAN'];
  const doc = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Array<{ Plan?: { 'Plan Rows'?: number; Plans?: Array<{ 'Plan Rows'?: number }> } }> | undefined;
  const plan = doc?.[0]?.Plan;
  return Math.round(Number(plan?.Plans?.[0]?.['Plan Rows'] ?? plan?.['Plan Rows'] ?? 0));
}

/** Whether a query's records are its columns decoded, nothing computed (no formulas, joins or projection). */
function plainColumns(ast: QueryAst): boolean {
  return ast.formulas.length === 0 && ast.output === null && !ast.select.some((s) => s.key.includes('.'));
}

/** Records decoded once per remembered page (countCache.ts) and query, kept as long as the page. */
const decodedPages = new WeakMap<object, { ast: QueryAst; records: Array<Record<string, unknown>>; copy: (record: Record<string, unknown>) => Record<string, unknown> }>();

/**
 * The records of a remembered page of plain columns, decoded on its first read from memory and
 * copied for each later one: a caller gets records of its own (field security, hooks and expand
 * change them), with arrays and objects (multiselect, json) copied too.
 */
function decodedOnce(rows: Rows, pageRows: Rows, ast: QueryAst, dialect: Dialect): Array<Record<string, unknown>> {
  let known = decodedPages.get(rows);
  if (!known || known.ast !== ast) {
    known = { ast, records: pageRows.map(recordDecoder(ast, dialect)), copy: recordCopier(ast) };
    decodedPages.set(rows, known);
  }
  return known.records.map(known.copy);
}

/**
 * Copies a decoded record of plain columns: a spread of the whole record (V8 clones it in one
 * step, where key-by-key stores cost several times more), then its own copies of the values that
 * can be arrays or objects (multiselect and json columns).
 */
function recordCopier(ast: QueryAst): (record: Record<string, unknown>) => Record<string, unknown> {
  const deep = ast.select.filter((s) => s.ref.type === 'multiselect' || s.ref.type === 'json').map((s) => s.key);
  return (record) => {
    const copy = { ...record };
    for (const key of deep) {
      const value = copy[key];
      if (value !== null && typeof value === 'object') copy[key] = Array.isArray(value) && value.every((v) => v === null || typeof v !== 'object') ? value.slice() : structuredClone(value);
    }
    return copy;
  };
}

type Rows = Array<Record<string, unknown>>;

/** The row-to-record function of a query; plain columns (no formulas, joins or projection) take a direct path. */
export function recordDecoder(ast: QueryAst, dialect: Dialect, cel?: ExpressionContext): (row: Record<string, unknown>) => Record<string, unknown> {
  if (!plainColumns(ast)) return (row) => decodeRecord(ast, row, dialect, cel);
  const columns = ast.select.map((s) => [s.key, s.ref.type] as const);
  return (row) => {
    const record: Record<string, unknown> = {};
    for (const [key, type] of columns) record[key] = decodeValue(type, row[key], dialect) ?? null;
    return record;
  };
}

/**
 * One record. Joined fields are nested under their alias (`{..., a: {name}}`); a left join that
 * found nothing gives `a: null`.
 */
function decodeRecord(ast: QueryAst, row: Record<string, unknown>, dialect: Dialect, cel?: ExpressionContext): Record<string, unknown> {
  const flat: Record<string, unknown> = {};
  for (const item of ast.select) flat[item.key] = decodeValue(item.ref.type, row[item.key], dialect);
  if (ast.formulas.length > 0) computeFormulas(flat, ast.formulas, cel);
  const keys = ast.output ?? Object.keys(flat);
  const record: Record<string, unknown> = {};
  const nested = new Map<string, Record<string, unknown>>();
  for (const key of keys) {
    const dot = key.indexOf('.');
    if (dot === -1) {
      record[key] = flat[key] ?? null;
      continue;
    }
    const alias = key.slice(0, dot);
    let target = nested.get(alias);
    if (!target) {
      target = {};
      nested.set(alias, target);
    }
    target[key.slice(dot + 1)] = flat[key] ?? null;
  }
  for (const [alias, values] of nested) {
    const missing = Object.hasOwn(values, 'id') ? values.id === null : Object.values(values).every((v) => v === null);
    record[alias] = missing ? null : values;
  }
  return record;
}

function decodeGroup(ast: QueryAst, row: Record<string, unknown>, dialect: Dialect): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of ast.groupBy) out[key.key] = decodeValue(groupKeyType(key), row[key.key], dialect);
  for (const node of ast.aggregations) out[node.alias] = decodeAggregate(node, row[node.alias], dialect);
  return out;
}

function decodeAggregate(node: AggregationNode, raw: unknown, dialect: Dialect): unknown {
  if (raw === null || raw === undefined) return node.fn === 'count' || node.fn === 'count_distinct' ? 0 : node.fn === 'array_agg' ? [] : null;
  switch (node.fn) {
    case 'count':
    case 'count_distinct':
    case 'sum':
    case 'avg':
      return Number(raw);
    case 'array_agg': {
      const list = (typeof raw === 'string' ? JSON.parse(raw) : raw) as unknown[];
      return list.map((v) => decodeValue(node.ref!.type, v, dialect));
    }
    case 'string_agg':
      return String(raw);
    default:
      return decodeValue(node.type, raw, dialect);
  }
}
