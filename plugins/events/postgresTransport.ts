import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { withTimeout } from '../../kernel/withTimeout.ts';
import type { Transport, TransportEvents } from './createEventsBus.ts';

export const EVENTS_CHANNEL = 'osr_events';

/** Time between attempts to listen again after the connection was lost. */
const RETRY_MS = 1000;
/** A message that cannot be sent is tried again this many times (a server restarting, a connection lost). */
const ATTEMPTS = 5;
const SEND_RETRY_MS = 200;
/** How long connecting and LISTEN may take before the connection is given up. */
const LISTEN_TIMEOUT_MS = 5000;

/** Ends a client at once, also when its connection no longer answers (a half-open TCP connection). */
export function destroyClient(client: pg.Client): void {
  (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  void client.end().catch(() => undefined);
}

/**
 * PostgreSQL LISTEN/NOTIFY on the main database (every schema of it shares the channel; messages
 * name their environment). One connection listens, on the events channel and on this process's
 * heartbeat channel (heartbeat.ts); a lost connection is opened again after a second. Messages
 * are sent through a small pool of their own, so a process whose listening connection is down
 * still tells the others.
 */
export function postgresTransport(url: string, onError: (error: unknown) => void): Transport {
  const heartbeatChannel = `osr_heartbeat_${randomBytes(8).toString('hex')}`;
  let client: pg.Client | null = null;
  let closed = false;
  let events: TransportEvents | null = null;
  let retry: NodeJS.Timeout | null = null;
  const senders = new pg.Pool({ connectionString: url, max: 2, idleTimeoutMillis: 10_000, connectionTimeoutMillis: 2_000, query_timeout: 2_000 } as pg.PoolConfig);
  senders.on('error', onError);

  const schedule = () => {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = null;
      void connect().catch(onError);
    }, RETRY_MS);
    retry.unref();
  };
  const lose = (dead: pg.Client) => {
    if (client !== dead) return;
    client = null;
    destroyClient(dead);
    events?.down();
    schedule();
  };
  const connect = async () => {
    if (closed) return;
    const next = new pg.Client({ connectionString: url });
    next.on('notification', (n) => {
      if (client !== next || !n.payload) return;
      if (n.channel === EVENTS_CHANNEL) events?.deliver(n.payload);
      else if (n.channel === heartbeatChannel) events?.echo(n.payload);
    });
    next.on('error', (error) => {
      onError(error);
      lose(next);
    });
    next.on('end', () => lose(next));
    client = next;
    try {
      // A connection that does not answer (half-open) is given up after a while, and tried anew.
      await withTimeout(async () => {
        await next.connect();
        await next.query(`listen ${EVENTS_CHANNEL}`);
        await next.query(`listen ${heartbeatChannel}`);
      }, LISTEN_TIMEOUT_MS, () => new Error(`connecting and LISTEN did not answer within ${LISTEN_TIMEOUT_MS} ms`));
    } catch (error) {
      onError(error);
      lose(next);
      return;
    }
    if (client === next) events?.up();
  };
  return {
    kind: 'postgres',
    async send(message) {
      for (let attempt = 1; ; attempt++) {
        try {
          await senders.query('select pg_notify($1, $2)', [EVENTS_CHANNEL, message]);
          return;
        } catch (error) {
          if (closed || attempt >= ATTEMPTS) throw error;
          await new Promise((resolve) => setTimeout(resolve, SEND_RETRY_MS).unref());
        }
      }
    },
    async beat(token) {
      // Through the listening connection itself: a heartbeat back proves that connection delivers.
      await client?.query('select pg_notify($1, $2)', [heartbeatChannel, token]);
    },
    async open(handlers) {
      events = handlers;
      await connect();
    },
    reconnect() {
      if (client) lose(client);
    },
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      const c = client;
      client = null;
      if (c) await c.end().catch(() => undefined);
      await senders.end().catch(() => undefined);
    },
  };
}
