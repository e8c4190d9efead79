import { createHash } from 'node:crypto';
import type Sqlite from 'better-sqlite3';
import type { Knex } from 'knex';
import { dialectOf, quoteIdent } from './dialect.ts';
import { idleWriter } from './idleWriter.ts';
import { directReader, runReturning } from './sqliteReader.ts';

/**
 * One-row inserts and versioned updates that answer the written row (`returning <columns>`, the
 * select list of the caller's by-id read), so a write needs no read-back statement. The statement
 * text is made once per table, column list and answer, and runs on the transaction's connection:
 * SQLite's cached statement (attachTransactionConnection), a named statement on PostgreSQL, parsed
 * and planned once per connection. knex's query builder, which compiles every call afresh, is
 * bypassed. `knex` is a transaction of the engine's (heldTransaction.ts), or the environment's own
 * knex for a statement run alone.
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

/**
 * `alone`: the statement runs outside any transaction, committed by itself (engine/writeAlone.ts):
 * on SQLite's writer at once when it is free (idleWriter.ts), else on a connection from the pool;
 * without `alone`, in the transaction `knex`.
 */
function run(knex: Knex, statement: { sql: string; name: string }, values: unknown[], alone: boolean): Promise<Rows> {
  if (alone) return runAlone(knex, statement, values);
  return inTransaction(knex, statement, values);
}

async function inTransaction(knex: Knex, statement: { sql: string; name: string }, values: unknown[]): Promise<Rows> {
  const reader = directReader(knex);
  if (reader) return reader({ sql: statement.sql, bindings: values });
  if (knex.listenerCount('query') > 0) knex.emit('query', { sql: statement.sql, bindings: values, method: 'insert' });
  const connection = (await (knex.client as { acquireConnection(): Promise<PgConnection> }).acquireConnection());
  return (await connection.query({ name: statement.name, text: statement.sql, values })).rows;
}

function runAlone(knex: Knex, statement: { sql: string; name: string }, values: unknown[]): Promise<Rows> {
  if (knex.listenerCount('query') > 0) knex.emit('query', { sql: statement.sql, bindings: values, method: 'insert' });
  // SQLite's writer, free: the statement runs on it now, without taking it from the pool.
  const idle = dialectOf(knex) === 'sqlite' ? idleWriter(knex) : undefined;
  if (!idle) return fromPool(knex, statement, values);
  try {
    return Promise.resolve(runReturning(idle, statement.sql, values));
  } catch (error) {
    return Promise.reject(error);
  }
}

async function fromPool(knex: Knex, statement: { sql: string; name: string }, values: unknown[]): Promise<Rows> {
  const client = knex.client as { acquireConnection(): Promise<unknown>; releaseConnection(connection: unknown): Promise<unknown> };
  const connection = await client.acquireConnection();
  try {
    if (dialectOf(knex) === 'sqlite') return runReturning(connection as Sqlite.Database, statement.sql, values);
    return (await (connection as PgConnection).query({ name: statement.name, text: statement.sql, values })).rows;
  } finally {
    await client.releaseConnection(connection);
  }
}

/** Inserts `row` (encoded column values) into `table`; answers the stored row as `returning` selects it. */
export function insertReturning(knex: Knex, table: string, row: Record<string, unknown>, returning: string, alone = false): Promise<Rows> {
  const dialect = dialectOf(knex);
  const columns = Object.keys(row);
  const statement = textOf(returning, `i\u0000${dialect}\u0000${table}\u0000${columns.join('\u0000')}`, () => {
    const slots = columns.map((_, i) => (dialect === 'postgres' ? `$${i + 1}` : '?'));
    return `insert into ${quoteIdent(table)} (${columns.map(quoteIdent).join(', ')}) values (${slots.join(', ')}) returning ${returning}`;
  });
  return run(knex, statement, columns.map((c) => row[c]), alone);
}

/**
 * Sets `values` (encoded columns) on the row `id` of `table` if it is still at `version`; answers
 * the row as `returning` selects it, or no row when the id or version did not match. With
 * `version` null (a write alone whose caller named no version) the row is written at whatever
 * version it has, and its version goes one up in the statement.
 */
export function updateReturning(knex: Knex, table: string, values: Record<string, unknown>, id: string, version: number | null, returning: string, alone = false): Promise<Rows> {
  const dialect = dialectOf(knex);
  const columns = Object.keys(values);
  const statement = textOf(returning, `u\u0000${dialect}\u0000${version === null}\u0000${table}\u0000${columns.join('\u0000')}`, () => {
    const slot = (i: number) => (dialect === 'postgres' ? `$${i + 1}` : '?');
    const sets = columns.map((c, i) => `${quoteIdent(c)} = ${slot(i)}`);
    if (version === null) sets.push(`${quoteIdent('version')} = ${quoteIdent('version')} + 1`);
    const which = `${quoteIdent('id')} = ${slot(columns.length)}${version === null ? '' : ` and ${quoteIdent('version')} = ${slot(columns.length + 1)}`}`;
    return `update ${quoteIdent(table)} set ${sets.join(', ')} where ${which} returning ${returning}`;
  });
  const bindings = columns.map((c) => values[c]);
  bindings.push(id);
  if (version !== null) bindings.push(version);
  return run(knex, statement, bindings, alone);
}
