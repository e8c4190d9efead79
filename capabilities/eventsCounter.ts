import { defineCapability } from './defineCapability.ts';

/** Fixed-window counts (rate limits) kept where every process sees them. */
export interface EventsCounter {
  /** True when counts are shared between processes (Redis is configured); false: each process counts alone. */
  readonly shared: boolean;
  /**
   * Adds `amount` (default 1; 0 reads) to `key` in a window of `windowMs` starting at the key's
   * first hit; answers the window's count and the milliseconds left in it. The key is used as
   * given (callers prefix it). Rejects when the shared store does not answer; callers then count
   * in their own process.
   */
  hit(key: string, windowMs: number, amount?: number): Promise<{ count: number; ttlMs: number }>;
}

export const eventsCounter = defineCapability<EventsCounter>()({
  id: 'events.counter',
  cardinality: 'single',
  description: 'Fixed-window counters shared by every runtime process through Redis when one is configured (rate limits that hold behind a load balancer), else counted in this process.',
});
