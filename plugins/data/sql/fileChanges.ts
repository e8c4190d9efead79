import type { Knex } from 'knex';
import { writerConnection } from './idleWriter.ts';

/**
 * SQLite: whether another connection (another process on the same file, or a program) committed
 * to the file since the last look, through `PRAGMA data_version` on the writer connection. That
 * number moves when any other connection commits, never for the writer's own commits (which the
 * engine tells its caches itself), so a process on its own keeps its remembered reads. The look
 * costs a microsecond or two and is taken before anything remembered is served.
 */
export function fileChanges(knex: Knex): () => 'same' | 'changed' | 'unknown' {
  let last: number | undefined;
  return () => {
    const conn = writerConnection(knex);
    if (!conn?.open) return 'unknown';
    const version = conn.pragma('data_version', { simple: true }) as number;
    const before = last;
    last = version;
    return before === undefined || before === version ? 'same' : 'changed';
  };
}
