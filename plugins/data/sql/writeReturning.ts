import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { dialectOf, quoteIdent } from './dialect.ts';
import { directReader } from './sqliteReader.ts';

/**
 * One-row inserts and versioned updates that answer the written row (`returning <columns>`, the
 * select list of the caller's by-id read), so a write needs no read-back statement. The statement
 * text is made once per table, column list and answer, and runs on the transaction's connection:
 * SQLite's cached statement (attachTransactionConnection), a named statement on PostgreSQL, parsed
 * and planned once per connection. knex's query builder, which compiles every call afresh, is
 * bypassed. `trx` is a transaction of the engine's (heldTransaction.ts).
 */
type Rows = Array<Record<string, unknown>>;

/** Statement texts kept (one per table, column list and answer); past it they are made afresh. */
const TEXTS_KEPT = 256;
// By answer first: its list (kept on the caller's plan) is the same string each time, whose hash V8 keeps.
const texts = new Map<string, Map<string, { sql: string; name: string }>>();
let kept = 0;

function textOf(returning: string, key: string, make: () => string): { sql: string; name: string } {
  let byKey = texts.get(returning);
  const known = byKey?.get(key);
  if (known) return known;
  const sql = make();
  const made = { sql, name: `osr_${createHash('sha1').update(sql).digest('hex').slice(0, 24)}` };
  if (kept >= TEXTS_KEPT) {
    texts.clear();
    kept = 0;
    byKey = undefined;
  }
  if (!byKey) texts.set(returning, (byKey = new Map()));
  byKey.set(key, made);
  kept++;
  return made;
}

interface PgConnection {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: Rows }>;
}

async function run(trx: Knex.Transaction, statement: { sql: string; name: string }, values: unknown[]): Promise<Rows> {
  const reader = directReader(trx);
  if (reader) return reader({ sql: statement.sql, bindings: values });
  if (trx.listenerCount('query') > 0) trx.emit('query', { sql: statement.sql, bindings: values, method: 'insert' });
  const connection = (await (trx.client as { acquireConnection(): Promise<PgConnection> }).acquireConnection());
  return (await connection.query({ name: statement.name, text: statement.sql, values })).rows;
}

/** Inserts `row` (encoded column values) into `table`; answers the stored row as `returning` selects it. */
export function insertReturning(trx: Knex.Transaction, table: string, row: Record<string, unknown>, returning: string): Promise<Rows> {
  const dialect = dialectOf(trx);
  const columns = Object.keys(row);
  const statement = textOf(returning, `i\u0000${dialect}\u0000${table}\u0000${columns.join('\u0000')}`, () => {
    const slots = columns.map((_, i) => (dialect === 'postgres' ? `$${i + 1}` : '?'));
    return `insert into ${quoteIdent(table)} (${columns.map(quoteIdent).join(', ')}) values (${slots.join(', ')}) returning ${returning}`;
  });
  return run(trx, statement, columns.map((c) => row[c]));
}

/**
 * Sets `values` (encoded columns) on the row `id` of `table` if it is still at `version`; answers
 * the row as `returning` selects it, or no row when the id or version did not match.
 */
export function updateReturning(trx: Knex.Transaction, table: string, values: Record<string, unknown>, id: string, version: number, returning: string): Promise<Rows> {
  const dialect = dialectOf(trx);
  const columns = Object.keys(values);
  const statement = textOf(returning, `u\u0000${dialect}\u0000${table}\u0000${columns.join('\u0000')}`, () => {
    const slot = (i: number) => (dialect === 'postgres' ? `$${i + 1}` : '?');
    const sets = columns.map((c, i) => `${quoteIdent(c)} = ${slot(i)}`);
    return `update ${quoteIdent(table)} set ${sets.join(', ')} where ${quoteIdent('id')} = ${slot(columns.length)} and ${quoteIdent('version')} = ${slot(columns.length + 1)} returning ${returning}`;
  });
  return run(trx, statement, [...columns.map((c) => values[c]), id, version]);
}
