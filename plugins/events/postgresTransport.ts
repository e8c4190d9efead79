import pg from 'pg';
import type { Transport } from './createEventsBus.ts';

export const EVENTS_CHANNEL = 'osr_events';

/**
 * PostgreSQL LISTEN/NOTIFY on the main database (every schema of it shares the channel; messages
 * name their environment). A lost connection is opened again after a second.
 */
export function postgresTransport(url: string, onError: (error: unknown) => void): Transport {
  let client: pg.Client | null = null;
  let closed = false;
  let deliverTo: ((message: string) => void) | null = null;
  const connect = async () => {
    const next = new pg.Client({ connectionString: url });
    next.on('notification', (n) => {
      if (n.channel === EVENTS_CHANNEL && n.payload) deliverTo?.(n.payload);
    });
    next.on('error', (error) => {
      onError(error);
      if (client === next) client = null;
      if (!closed) setTimeout(() => void connect().catch(onError), 1000).unref();
    });
    await next.connect();
    await next.query(`listen ${EVENTS_CHANNEL}`);
    client = next;
  };
  return {
    kind: 'postgres',
    async send(message) {
      if (!client) throw new Error('the PostgreSQL events connection is down; the message is dropped');
      await client.query('select pg_notify($1, $2)', [EVENTS_CHANNEL, message]);
    },
    async open(deliver) {
      deliverTo = deliver;
      await connect();
    },
    async close() {
      closed = true;
      const c = client;
      client = null;
      await c?.end().catch(() => undefined);
    },
  };
}
