import type { Transport, TransportEvents } from './createEventsBus.ts';
import { fromPrimary, toPrimary } from './workersChannel.ts';

/**
 * Events between the workers of one `osr start --workers N`, relayed by the primary (workersChannel.ts).
 * The channel is the worker's IPC pipe to its primary, which is not half-open the way a network
 * connection may be: a heartbeat comes back as long as the primary takes messages.
 */
export function workersTransport(): Transport {
  let stop: (() => void) | null = null;
  let events: TransportEvents | null = null;
  return {
    kind: 'workers',
    async send(message) {
      if (!toPrimary({ osr: 'bus', message })) throw new Error('the primary process is gone');
    },
    async beat(token) {
      if (process.connected) events?.echo(token);
    },
    async open(given) {
      events = given;
      stop = fromPrimary('bus', (m) => {
        if (typeof m.message === 'string') given.deliver(m.message);
      });
      given.up();
    },
    reconnect() {
      // Nothing to reconnect: the pipe to the primary lives as long as the worker.
    },
    async close() {
      stop?.();
      stop = null;
      events = null;
    },
  };
}
