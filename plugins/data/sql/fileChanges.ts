import type Sqlite from 'better-sqlite3';
import type { Knex } from 'knex';
import { writerConnection } from './idleWriter.ts';

/**
 * SQLite: whether another connection (another process on the same file, a program, or the auth
 * engine's own connection in this process) committed to the file since the last look, through
 * `PRAGMA data_version` on the writer connection. That number moves when any other connection
 * commits, never for the writer's own commits (which the engine tells its caches itself), so a
 * process on its own keeps its remembered reads. The statement is prepared once per connection;
 * the engine looks only when a remembered total or page is about to be used (createDataEngine.ts).
 * Numbers of two connections cannot be compared: a new writer connection counts as a change.
 */
export function fileChanges(knex: Knex): () => 'same' | 'changed' | 'unknown' {
  let last: number | undefined;
  let prepared: { conn: Sqlite.Database; statement: Sqlite.Statement } | undefined;
  return () => {
    const conn = writerConnection(knex);
    if (!conn?.open) return 'unknown';
    let known = true;
    if (prepared?.conn !== conn) {
      known = prepared === undefined;
      prepared = { conn, statement: conn.prepare('PRAGMA data_version').pluck() };
    }
    const version = prepared.statement.get() as number;
    const before = last;
    last = version;
    if (!known) return 'changed';
    return before === undefined || before === version ? 'same' : 'changed';
  };
}
