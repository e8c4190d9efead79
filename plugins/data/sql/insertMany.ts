import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { dialectOf } from './dialect.ts';
import { directReader } from './sqliteReader.ts';

/** Bound parameters of one statement, under SQLite's 32,766 and PostgreSQL's 65,535. */
const MAX_PARAMETERS = 30_000;
/** Statement texts kept: one per table, column list and row count (a batch and its remainder). */
const TEXTS_KEPT = 64;
const texts = new Map<string, { sql: string; name: string }>();

interface SqliteStatement {
  run(bindings: unknown[]): unknown;
}
type Rows = Array<Record<string, unknown>>;
interface TransactionConnection {
  /** better-sqlite3 (its statements cached by openDatabase.ts). */
  prepare?(sql: string): SqliteStatement;
  /** pg. */
  query?(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: Rows }>;
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The statement text of `count` rows of `columns` (answering `returning` when given), made once. */
function textOf(dialect: string, table: string, columns: readonly string[], count: number, returning: string | undefined): { sql: string; name: string } {
  const key = `${dialect}\u0000${table}\u0000${columns.join('\u0000')}\u0000${count}\u0000${returning ?? ''}`;
  const known = texts.get(key);
  if (known) return known;
  let n = 0;
  const row = () => `(${columns.map(() => (dialect === 'postgres' ? `$${++n}` : '?')).join(', ')})`;
  const sql = `insert into ${quote(table)} (${columns.map(quote).join(', ')}) values ${Array.from({ length: count }, row).join(', ')}${returning ? ` returning ${returning}` : ''}`;
  const made = { sql, name: `osr_${createHash('sha1').update(sql).digest('hex').slice(0, 24)}` };
  if (texts.size >= TEXTS_KEPT) texts.delete(texts.keys().next().value!);
  texts.set(key, made);
  return made;
}

/**
 * Inserts rows of the same columns (encoded values, as recordToRow makes them) in the open
 * transaction `trx`, as multi-row inserts of at most MAX_PARAMETERS values, each statement text
 * prepared once: SQLite's statement cache, a named statement on PostgreSQL. knex's query
 * builder, which compiles every call afresh, is bypassed; its 'query' event is still emitted.
 * With `returning` (a select list, writeReturning.ts) it answers the stored rows as that list
 * selects them, in no particular order (SQLite does not promise one); without it, no rows.
 */
export async function insertMany(trx: Knex.Transaction, table: string, columns: readonly string[], rows: readonly unknown[][], returning?: string): Promise<Rows> {
  const answered: Rows = [];
  if (rows.length === 0) return answered;
  const dialect = dialectOf(trx);
  const size = Math.max(1, Math.floor(MAX_PARAMETERS / Math.max(1, columns.length)));
  // SQLite: the transaction's own connection reader answers rows (it emits the 'query' event itself).
  const reader = returning ? directReader(trx) : undefined;
  const connection = reader ? null : (await (trx.client as { acquireConnection(): Promise<TransactionConnection> }).acquireConnection());
  for (let i = 0; i < rows.length; i += size) {
    const chunk = rows.slice(i, i + size);
    const { sql, name } = textOf(dialect, table, columns, chunk.length, returning);
    const values = chunk.flat();
    if (reader) {
      for (const row of reader({ sql, bindings: values })) answered.push(row);
      continue;
    }
    if (trx.listenerCount('query') > 0) trx.emit('query', { sql, bindings: values, method: 'insert' });
    if (dialect === 'postgres') {
      const result = await connection!.query!({ name, text: sql, values });
      if (returning) for (const row of result.rows) answered.push(row);
    } else connection!.prepare!(sql).run(values);
  }
  return answered;
}
