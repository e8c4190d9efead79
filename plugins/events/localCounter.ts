import type { EventsCounter } from '../../capabilities/eventsCounter.ts';

/** Bounds memory under a flood of distinct keys; expired windows are swept first. */
const MAX_KEYS = 100_000;

/** Fixed windows counted in this process (no Redis: each process counts alone). */
export function localCounter(now: () => number = Date.now): EventsCounter {
  const windows = new Map<string, { count: number; resetAt: number }>();
  return {
    shared: false,
    async hit(key, windowMs, amount = 1) {
      const at = now();
      let window = windows.get(key);
      if (!window || window.resetAt <= at) {
        if (windows.size >= MAX_KEYS) {
          for (const [k, w] of windows) if (w.resetAt <= at) windows.delete(k);
          if (windows.size >= MAX_KEYS) windows.delete(windows.keys().next().value!);
        }
        window = { count: 0, resetAt: at + windowMs };
        windows.set(key, window);
      }
      window.count += amount;
      return { count: window.count, ttlMs: window.resetAt - at };
    },
  };
}
