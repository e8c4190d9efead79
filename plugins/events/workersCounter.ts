import type { EventsCounter } from '../../capabilities/eventsCounter.ts';
import { fromPrimary, toPrimary } from './workersChannel.ts';

/** An answer not back within this is a failure: the caller counts in its own process (EventsCounter.hit). */
const ANSWER_MS = 1000;

/** Fixed windows counted by the primary of `osr start --workers N` for all its workers (workersChannel.ts). */
export function workersCounter(): EventsCounter & { close(): void } {
  let next = 0;
  const waiting = new Map<number, { resolve(value: { count: number; ttlMs: number }): void; reject(error: Error): void; timer: NodeJS.Timeout }>();
  const stop = fromPrimary('counter', (m) => {
    const pending = waiting.get(m.id as number);
    if (!pending) return;
    waiting.delete(m.id as number);
    clearTimeout(pending.timer);
    pending.resolve({ count: Number(m.count), ttlMs: Number(m.ttlMs) });
  });
  return {
    shared: true,
    hit(key, windowMs, amount = 1) {
      return new Promise((resolve, reject) => {
        const id = ++next;
        const timer = setTimeout(() => {
          waiting.delete(id);
          reject(new Error('the primary process did not answer the count'));
        }, ANSWER_MS);
        timer.unref();
        waiting.set(id, { resolve, reject, timer });
        if (!toPrimary({ osr: 'counter', id, key, windowMs, amount })) {
          waiting.delete(id);
          clearTimeout(timer);
          reject(new Error('the primary process is gone'));
        }
      });
    },
    close() {
      stop();
      for (const pending of waiting.values()) clearTimeout(pending.timer);
      waiting.clear();
    },
  };
}
