import type { EventsCounter } from '../capabilities/eventsCounter.ts';
import { codedError } from './errors.ts';

/** At most `max` hits per key in each window of `windowSeconds`. */
export interface WindowRule {
  max: number;
  windowSeconds: number;
}

/** Bounds memory under a flood of distinct addresses; expired windows are swept first. */
const MAX_KEYS = 100_000;

/**
 * Fixed-window counts per key (a form and a client IP, a share link's client IP...): in Redis when
 * one is configured (every process behind a load balancer shares the count), else, and while Redis
 * does not answer, in memory. The one limiter of public routes (forms, share links).
 */
export class WindowRateLimiter {
  private windows = new Map<string, { count: number; resetAt: number }>();
  private shared: EventsCounter | null = null;
  private prefix = '';
  private onSharedError: (error: unknown) => void = () => undefined;

  /** `limit` names the limit in the RATE_LIMITED error's details (`form`, `share-link`). */
  constructor(private readonly limit: string, private readonly now: () => number = Date.now) {}

  /** Count through `counter` (keys prefixed with `prefix`) from now on; a failed call falls back to this process's count. */
  share(counter: EventsCounter | null, prefix: string, onError: (error: unknown) => void = () => undefined): void {
    this.shared = counter;
    this.prefix = prefix;
    this.onSharedError = onError;
  }

  async close(): Promise<void> {
    this.shared = null;
  }

  /** Counts one hit; throws RATE_LIMITED (429, retryAfter in seconds) past the rule's limit. */
  async hit(key: string, rule: WindowRule): Promise<void> {
    const wait = await this.countAnywhere(key, rule);
    if (wait > 0) throw codedError('RATE_LIMITED', { retryAfter: wait, limit: this.limit });
  }

  private async countAnywhere(key: string, rule: WindowRule): Promise<number> {
    if (this.shared) {
      try {
        const { count, ttlMs } = await this.shared.hit(`${this.prefix}${key}`, rule.windowSeconds * 1000);
        return count > rule.max ? Math.max(1, Math.ceil(ttlMs / 1000)) : 0;
      } catch (error) {
        this.onSharedError(error);
      }
    }
    const now = this.now();
    let window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      if (!window && this.windows.size >= MAX_KEYS) this.sweep(now);
      window = { count: 0, resetAt: now + rule.windowSeconds * 1000 };
      this.windows.set(key, window);
    }
    window.count += 1;
    return window.count > rule.max ? Math.max(1, Math.ceil((window.resetAt - now) / 1000)) : 0;
  }

  private sweep(now: number): void {
    for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
    for (const key of this.windows.keys()) {
      if (this.windows.size < MAX_KEYS) break;
      this.windows.delete(key);
    }
  }
}
