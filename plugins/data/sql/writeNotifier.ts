import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { SOURCE_MARK, writeChannel } from './writeSignal.ts';

/**
 * PostgreSQL: the sending side of the write signal (writeSignal.ts). A process tells the others
 * that it wrote to a schema's tables after the write committed, with `pg_notify` in a statement of
 * its own. A NOTIFY inside the write's transaction would be delivered only with its commit, but
 * PostgreSQL serializes the commits of notifying transactions (a lock held through each commit's
 * WAL flush), which cut the bench's write rate to a third; a NOTIFY after the commit does not
 * hold the write.
 *
 * Signals are merged while one is on its way: writes that commit during a send are told by the
 * next, so under load one statement tells many writes, each at most one round trip after its
 * commit. The payload names the tables written (listeners forget only those tables' totals and
 * pages) or names none for "any table". The payload ends with the sender's mark (`source`, a dot
 * and the number of the latest write told: an entry that is no table name), so the sending
 * process, which forgot those tables itself at the write, does not forget what it has read since,
 * and the others know which of its writes they have heard of (read-your-writes tokens, `token`). A send that fails (the server gone) is tried again a few times; a listener that
 * lost its own connection forgets everything once it listens again.
 */
export interface WriteNotifier {
  /** Tell other processes, soon, that these tables (every table, without any) were written by a committed write. */
  wrote(tables?: readonly string[]): void;
  /** Settles once every signal asked for so far was sent (or given up). */
  settled(): Promise<void>;
  /** This notifier's mark in the payload (`@` and random letters): its process's listener passes it to listenForWrites. */
  readonly source: string;
  /**
   * The read-your-writes token of every write told so far (`X-OSR-Write-Token`, docs/data-api.md):
   * this notifier's mark without its `@`, a dot and the number of its latest signal. A process
   * that heard that signal (or a later one) from this notifier has forgotten what those writes changed.
   */
  token(): string;
}

/** A table name that may travel in the payload as it is (a notification's payload holds under 8,000 bytes). */
const TABLE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
const MAX_PAYLOAD = 7_000;
const ATTEMPTS = 5;
const RETRY_MS = 200;
const STATEMENT = 'select pg_notify($1, $2)';

interface PgConnection {
  query(config: { name: string; text: string; values: unknown[] }): Promise<unknown>;
}

export function createWriteNotifier(knex: Knex, schema: string | null): WriteNotifier {
  const channel = writeChannel(schema);
  const source = `${SOURCE_MARK}${randomBytes(9).toString('base64url')}`;
  let pending: Set<string> | 'all' | null = null;
  let running: Promise<void> | null = null;
  // Signals asked for so far: the payload's mark carries the latest, so a listener knows which writes it has heard of.
  let seq = 0;

  async function send(payload: string): Promise<void> {
    if (knex.listenerCount('query') > 0) knex.emit('query', { sql: STATEMENT, bindings: [channel, payload], method: 'raw' });
    const client = knex.client as { acquireConnection(): Promise<PgConnection>; releaseConnection(connection: PgConnection): Promise<unknown> };
    const connection = await client.acquireConnection();
    try {
      await connection.query({ name: 'osr_write_signal', text: STATEMENT, values: [channel, payload] });
    } finally {
      await client.releaseConnection(connection);
    }
  }

  async function flush(): Promise<void> {
    try {
      let failures = 0;
      while (pending !== null) {
        const tables = pending;
        pending = null;
        const mark = `${source}.${seq}`;
        // The mark alone names no table: every table (listeners of earlier versions read it so too).
        const payload = tables === 'all' ? mark : [...tables, mark].join(',');
        try {
          await send(payload.length > MAX_PAYLOAD ? mark : payload);
          failures = 0;
        } catch {
          if (++failures >= ATTEMPTS) continue;
          // Told again, with whatever was written meanwhile: as every table, the safe side.
          pending = 'all';
          await new Promise((resolve) => setTimeout(resolve, RETRY_MS).unref());
        }
      }
    } finally {
      running = null;
    }
  }

  return {
    wrote(tables) {
      seq++;
      if (!tables || tables.length === 0 || !tables.every((t) => TABLE_NAME.test(t)) || pending === 'all') pending = 'all';
      else {
        pending ??= new Set();
        for (const table of tables) pending.add(table);
      }
      running ??= flush();
    },
    settled: () => running ?? Promise.resolve(),
    source,
    token: () => `${source.slice(SOURCE_MARK.length)}.${seq}`,
  };
}
