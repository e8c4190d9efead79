import type { Transport } from './createEventsBus.ts';
import { fromPrimary, toPrimary } from './workersChannel.ts';

/** Events between the workers of one `osr start --workers N`, relayed by the primary (workersChannel.ts). */
export function workersTransport(): Transport {
  let stop: (() => void) | null = null;
  return {
    kind: 'workers',
    async send(message) {
      if (!toPrimary({ osr: 'bus', message })) throw new Error('the primary process is gone');
    },
    async open(deliver) {
      stop = fromPrimary('bus', (m) => {
        if (typeof m.message === 'string') deliver(m.message);
      });
    },
    async close() {
      stop?.();
      stop = null;
    },
  };
}
