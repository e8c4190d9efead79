import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { dialectOf } from './dialect.ts';
import { directReader } from './sqliteReader.ts';

/** A select in its driver's own placeholder form (`?` for SQLite, `$1` for PostgreSQL), bound. */
export interface NativeStatement {
  sql: string;
  bindings: unknown[];
}

/** Whether runNative can run statements on this knex (SQLite file reader, or PostgreSQL). */
export function canRunNative(knex: Knex): boolean {
  return directReader(knex) !== undefined || dialectOf(knex) === 'postgres';
}

/**
 * Runs a select outside knex's query builder (synchronously on SQLite). SQLite: the file's reader connection. PostgreSQL: a
 * pooled connection with a named statement, so the server parses and plans each SQL text once
 * per connection. knex's 'query' event is still emitted.
 */
export function runNative(knex: Knex, statement: NativeStatement): Array<Record<string, unknown>> | Promise<Array<Record<string, unknown>>> {
  const reader = directReader(knex);
  return reader ? reader(statement) : runPrepared(knex, statement);
}

async function runPrepared(knex: Knex, statement: NativeStatement): Promise<Array<Record<string, unknown>>> {
  if (knex.listenerCount('query') > 0) knex.emit('query', { sql: statement.sql, bindings: statement.bindings, method: 'select' });
  const client = knex.client as { acquireConnection(): Promise<PgConnection>; releaseConnection(conn: PgConnection): Promise<unknown> };
  const connection = await client.acquireConnection();
  try {
    const name = statementName(statement.sql);
    return (await connection.query({ name, text: statement.sql, values: statement.bindings })).rows;
  } finally {
    await client.releaseConnection(connection);
  }
}

/** Names of the statement texts seen (planned reads repeat a few texts), so a read hashes none. */
const NAMES_KEPT = 512;
const names = new Map<string, string>();

/** A PostgreSQL statement's name: one per SQL text, the same on every connection. */
function statementName(sql: string): string {
  let name = names.get(sql);
  if (name === undefined) {
    name = `osr_${createHash('sha1').update(sql).digest('hex').slice(0, 24)}`;
    if (names.size >= NAMES_KEPT) names.delete(names.keys().next().value!);
    names.set(sql, name);
  }
  return name;
}

interface PgConnection {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: Array<Record<string, unknown>> }>;
}

/**
 * PostgreSQL: runs a select on a connection of its own that `signal` can cancel (pg_cancel_backend
 * from another connection); the cancelled statement fails with SQLSTATE 57014. The connection goes
 * back to the pool only after a cancel sent has been answered, so it cannot reach a later statement.
 */
export async function runCancellable(knex: Knex, statement: NativeStatement, signal: AbortSignal): Promise<Array<Record<string, unknown>>> {
  if (knex.listenerCount('query') > 0) knex.emit('query', { sql: statement.sql, bindings: statement.bindings, method: 'select' });
  const client = knex.client as {
    acquireConnection(): Promise<PgConnection>;
    releaseConnection(conn: PgConnection): Promise<unknown>;
    cancelQuery(conn: PgConnection): Promise<unknown>;
  };
  if (signal.aborted) throw abortError();
  const connection = await client.acquireConnection();
  let cancelling: Promise<unknown> | null = null;
  const cancel = () => {
    cancelling = client.cancelQuery(connection).catch(() => undefined);
  };
  try {
    if (signal.aborted) throw abortError();
    signal.addEventListener('abort', cancel, { once: true });
    return (await (connection as unknown as PgTextConnection).query({ text: statement.sql, values: statement.bindings })).rows;
  } finally {
    signal.removeEventListener('abort', cancel);
    if (cancelling) await cancelling;
    await client.releaseConnection(connection);
  }
}

interface PgTextConnection {
  query(config: { text: string; values: unknown[] }): Promise<{ rows: Array<Record<string, unknown>> }>;
}

function abortError(): Error {
  return Object.assign(new Error('the request was closed'), { name: 'AbortError' });
}
