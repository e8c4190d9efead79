import type { Knex } from 'knex';

/**
 * PostgreSQL: the signal that another process wrote to a schema, so totals counted here can be
 * remembered until the next write (countCache.ts) although other processes write too. Every
 * write transaction of the engine ends with `NOTIFY <channel>` sent with its COMMIT (delivered only
 * if it commits), and a single-statement write calls `pg_notify` from that statement (tableSignal); each process listens on a connection of its own and forgets the schema's totals
 * when a notification arrives. While that connection is not listening (connecting, lost, closed)
 * the signal is not live and totals are not remembered; once it listens again, every total
 * remembered before is forgotten, since notifications sent meanwhile were missed.
 */
export interface WriteSignal {
  /** Whether notifications are being received now. */
  live(): boolean;
  close(): Promise<void>;
}

/** The channel of a schema's writes: an identifier of its own (schema names are checked, see openDatabase.ts). */
export function writeChannel(schema: string | null): string {
  return `osr_changed_${schema ?? 'public'}`;
}

/** A table name that may travel in a notification's payload as it is. */
const TABLE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * The statement a write sends (a write transaction with its COMMIT): with `tables`, the payload
 * names them and listeners forget the totals of those tables only.
 */
export function notifySql(schema: string | null, tables?: readonly string[]): string {
  const named = tables && tables.length > 0 && tables.every((t) => TABLE_NAME.test(t)) ? tables : undefined;
  return named ? `notify ${writeChannel(schema)}, '${named.join(',')}'` : `notify ${writeChannel(schema)}`;
}

/** The signal of a write to one table sent by the write's own statement (`pg_notify(channel, payload)`, writeReturning.ts). */
export function tableSignal(schema: string | null, table: string): { channel: string; payload: string } {
  return { channel: writeChannel(schema), payload: TABLE_NAME.test(table) ? table : '' };
}

interface ListenClient {
  query(sql: string): Promise<unknown>;
  on(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): void;
  on(event: 'error' | 'end', listener: (error?: Error) => void): void;
  end(): Promise<void>;
}

/** Time between attempts to listen again after the connection was lost. */
const RETRY_MS = 1000;

/**
 * Listens on `knex`'s database for writes to `schema`: `changed` runs on each notification (with
 * the tables it names, if any) and whenever notifications may have been missed (the connection
 * was lost or is listening again), then with no tables: everything.
 */
export function listenForWrites(knex: Knex, schema: string | null, changed: (tables?: readonly string[]) => void, onProblem: (error: Error) => void): WriteSignal {
  const client = knex.client as { acquireRawConnection(): Promise<ListenClient>; destroyRawConnection(connection: ListenClient): Promise<void> };
  const channel = writeChannel(schema);
  let connection: ListenClient | null = null;
  let listening = false;
  let closed = false;
  let retry: NodeJS.Timeout | null = null;

  const lost = (error?: Error) => {
    if (!listening && connection === null) return;
    listening = false;
    const dead = connection;
    connection = null;
    changed();
    if (dead) void client.destroyRawConnection(dead).catch(() => undefined);
    if (error) onProblem(error);
    schedule();
  };
  const schedule = () => {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = null;
      void connect();
    }, RETRY_MS);
    retry.unref();
  };
  const connect = async () => {
    if (closed) return;
    let opened: ListenClient | null = null;
    try {
      opened = await client.acquireRawConnection();
      if (closed) {
        await client.destroyRawConnection(opened);
        return;
      }
      opened.on('notification', (message) => {
        if (message.channel === channel) changed(message.payload ? message.payload.split(',') : undefined);
      });
      opened.on('error', (error) => lost(error ?? new Error('the listening connection failed')));
      opened.on('end', () => lost());
      connection = opened;
      await opened.query(`listen ${channel}`);
      listening = true;
      // Writes made while nothing listened went unheard.
      changed();
    } catch (error) {
      if (opened && connection === opened) lost(error as Error);
      else {
        onProblem(error as Error);
        schedule();
      }
    }
  };
  void connect();
  return {
    live: () => listening && !closed,
    async close() {
      closed = true;
      listening = false;
      if (retry) clearTimeout(retry);
      const open = connection;
      connection = null;
      if (open) await client.destroyRawConnection(open).catch(() => undefined);
    },
  };
}
