import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { EventsBus, WatchedPath } from '../../../capabilities/eventsBus.ts';
import { withTimeout } from '../../../kernel/withTimeout.ts';

/**
 * PostgreSQL: the signal that another process wrote to a schema, so totals counted here can be
 * remembered until the next write (countCache.ts) although other processes write too. Every
 * committed write of the engine is followed by `pg_notify(<channel>, <tables>)` (writeNotifier.ts);
 * each process listens on a connection of its own and forgets the schema's totals (of the tables
 * named, or all) when a notification arrives. While that connection is not listening (connecting, lost, closed)
 * the signal is not live and totals are not remembered; once it listens again, every total
 * remembered before is forgotten, since notifications sent meanwhile were missed. With the events
 * bus, the connection also carries a heartbeat (a NOTIFY to itself, heartbeat.ts in the events
 * plugin): a connection that stopped delivering without closing (half-open) is not live once its
 * heartbeat is overdue, is replaced after a while, and everything is forgotten when it is live again.
 */
export interface WriteSignal {
  /** Whether notifications are being received now. */
  live(): boolean;
  /**
   * Whether this process has heard of the write a read-your-writes token names (writeNotifier.ts
   * `token`): it came from this process's own notifier, or the signal carrying its number (or a
   * later one) from that notifier arrived here while listening. False for a token of unknown form.
   */
  heard(token: string): boolean;
  close(): Promise<void>;
}

/** Begins a sender's mark among the tables of a payload (writeNotifier.ts); no table name does. */
export const SOURCE_MARK = '@';

/** The channel of a schema's writes: an identifier of its own (schema names are checked, see openDatabase.ts). */
export function writeChannel(schema: string | null): string {
  return `osr_changed_${schema ?? 'public'}`;
}

interface ListenClient {
  query(sql: string): Promise<unknown>;
  on(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): void;
  on(event: 'error' | 'end', listener: (error?: Error) => void): void;
  end(): Promise<void>;
}

/** Senders remembered (processes writing to the schema); the least recently new one goes first. */
const MAX_SENDERS = 1024;

/** A sender's mark (`@<source>.<seq>`) or a token (`<source>.<seq>`): its source and number, or null. */
function markOf(text: string): { source: string; seq: number } | null {
  const match = /^@?([A-Za-z0-9_-]{1,32})\.(\d{1,15})$/.exec(text);
  return match ? { source: match[1]!, seq: Number(match[2]) } : null;
}

/** Time between attempts to listen again after the connection was lost. */
const RETRY_MS = 1000;
/** How long LISTEN may take before the connection is given up. */
const LISTEN_TIMEOUT_MS = 5000;

/**
 * Listens on `knex`'s database for writes to `schema`: `changed` runs on each notification (with
 * the tables it names, if any) and whenever notifications may have been missed (the connection
 * was lost or is listening again), then with no tables: everything. A notification marked with
 * `ownSource` (this process's notifier, writeNotifier.ts) is not passed on: its tables were
 * forgotten here at the write.
 */
export function listenForWrites(
  knex: Knex, schema: string | null, changed: (tables?: readonly string[]) => void, onProblem: (error: Error) => void, ownSource?: string,
  watch?: EventsBus['watch'],
): WriteSignal {
  const client = knex.client as { acquireRawConnection(): Promise<ListenClient>; destroyRawConnection(connection: ListenClient): Promise<void> };
  const channel = writeChannel(schema);
  const heartbeatChannel = `osr_heartbeat_${randomBytes(8).toString('hex')}`;
  let connection: ListenClient | null = null;
  let listening = false;
  let closed = false;
  let retry: NodeJS.Timeout | null = null;
  // Per sending notifier (its mark without `@`): the number of the latest signal heard from it.
  const latest = new Map<string, number>();
  const own = ownSource?.slice(SOURCE_MARK.length);
  const heartbeat: WatchedPath | null = watch
    ? watch(`writes (${schema ?? 'public'})`, async (token) => {
      // The token is digits only (heartbeat.ts).
      if (listening && /^\d+$/.test(token)) await connection?.query(`select pg_notify('${heartbeatChannel}', '${token}')`);
    }, () => lost(new Error('no heartbeat back on the listening connection; connecting anew')))
    : null;
  let seenEpoch = heartbeat?.epoch() ?? 0;

  const lost = (error?: Error) => {
    if (!listening && connection === null) return;
    listening = false;
    heartbeat?.lost();
    const dead = connection;
    connection = null;
    changed();
    if (dead) {
      // A half-open connection would keep a polite end waiting: its socket goes first.
      (dead as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
      void client.destroyRawConnection(dead).catch(() => undefined);
    }
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
        if (message.channel === heartbeatChannel) return heartbeat?.echo(message.payload ?? '');
        if (message.channel !== channel) return;
        if (!message.payload) return changed();
        const named = message.payload.split(',');
        const mark = named.find((name) => name.startsWith(SOURCE_MARK));
        const sender = mark === undefined ? undefined : markOf(mark);
        if (sender && own !== undefined && sender.source === own) return;
        const tables = named.filter((name) => !name.startsWith(SOURCE_MARK));
        changed(tables.length > 0 ? tables : undefined);
        // Noted after the caches forgot: a read that finds the token heard finds them current.
        if (sender) {
          if (!latest.has(sender.source) && latest.size >= MAX_SENDERS) latest.delete(latest.keys().next().value!);
          if ((latest.get(sender.source) ?? -1) < sender.seq) latest.set(sender.source, sender.seq);
        }
      });
      opened.on('error', (error) => lost(error ?? new Error('the listening connection failed')));
      opened.on('end', () => lost());
      connection = opened;
      // A connection that does not answer (half-open) is given up after a while, and tried anew.
      await withTimeout(async () => {
        await opened!.query(`listen ${channel}`);
        if (heartbeat) await opened!.query(`listen ${heartbeatChannel}`);
      }, LISTEN_TIMEOUT_MS, () => new Error(`LISTEN did not answer within ${LISTEN_TIMEOUT_MS} ms`));
      if (connection !== opened) return;
      listening = true;
      // Writes made while nothing listened went unheard.
      changed();
      heartbeat?.connected();
    } catch (error) {
      if (opened && connection === opened) lost(error as Error);
      else {
        onProblem(error as Error);
        schedule();
      }
    }
  };
  void connect();
  function live(): boolean {
    if (!listening || closed) return false;
    if (!heartbeat) return true;
    // Heard again after a lapse: notifications sent meanwhile may be lost.
    const epoch = heartbeat.epoch();
    if (epoch !== seenEpoch) {
      seenEpoch = epoch;
      changed();
    }
    return heartbeat.live();
  }
  return {
    live,
    heard(token) {
      const sender = markOf(token);
      if (!sender) return false;
      if (own !== undefined && sender.source === own) return true;
      return live() && (latest.get(sender.source) ?? -1) >= sender.seq;
    },
    async close() {
      closed = true;
      listening = false;
      heartbeat?.stop();
      if (retry) clearTimeout(retry);
      const open = connection;
      connection = null;
      if (open) await client.destroyRawConnection(open).catch(() => undefined);
    },
  };
}
