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
    const name = `osr_${createHash('sha1').update(statement.sql).digest('hex').slice(0, 24)}`;
    return (await connection.query({ name, text: statement.sql, values: statement.bindings })).rows;
  } finally {
    await client.releaseConnection(connection);
  }
}

interface PgConnection {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: Array<Record<string, unknown>> }>;
}
