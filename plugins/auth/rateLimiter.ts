import { codedError } from '../../kernel/errors.ts';
import type { RateFamily, RateLimitOptions } from './authOptions.ts';
import type { EventsCounter } from '../../capabilities/eventsCounter.ts';

interface Window {
  count: number;
  resetAt: number;
}

/** Bounds memory under a flood of distinct keys; expired windows are swept first. */
const MAX_KEYS = 100_000;

/**
 * Fixed-window counters per IP and per account: in Redis when one is configured, so several
 * processes behind a load balancer share one limit; else (and while Redis does not answer) in
 * process memory.
 */
export class RateLimiter {
  private windows = new Map<string, Window>();
  private shared: EventsCounter | null = null;
  private onSharedError: (error: unknown) => void = () => undefined;

  constructor(private readonly options: RateLimitOptions, private readonly now: () => number = Date.now) {}

  async close(): Promise<void> {
    this.shared = null;
  }

  /** Count in Redis from now on; a failed Redis call falls back to this process's count. */
  share(counter: EventsCounter | null, onError: (error: unknown) => void = () => undefined): void {
    this.shared = counter;
    this.onSharedError = onError;
  }

  /**
   * Count one attempt of `family` from this IP (for every environment) and for this account (in
   * its environment); throw RATE_LIMITED with the seconds to wait when either is over its limit.
   */
  async hit(family: RateFamily, input: { environmentId: string; ip: string; account?: string | null }): Promise<void> {
    if (!this.options.enabled) return;
    const rules = this.options[family];
    let wait = 0;
    wait = Math.max(wait, await this.countAnywhere(`${family}|ip|${input.ip}`, rules.perIp));
    if (input.account && 'perAccount' in rules) wait = Math.max(wait, await this.countAnywhere(`${family}|account|${input.environmentId}|${input.account.trim().toLowerCase()}`, rules.perAccount));
    if (wait > 0) throw codedError('RATE_LIMITED', { retryAfter: wait, limit: family });
  }

  private async countAnywhere(key: string, rule: { max: number; windowSeconds: number }): Promise<number> {
    if (this.shared) {
      try {
        const { count, ttlMs } = await this.shared.hit(`osr:ratelimit:${key}`, rule.windowSeconds * 1000);
        return count > rule.max ? Math.max(1, Math.ceil(ttlMs / 1000)) : 0;
      } catch (error) {
        this.onSharedError(error);
      }
    }
    return this.count(key, rule, this.now());
  }

  /** Seconds to wait, or 0 when the attempt is allowed. */
  private count(key: string, rule: { max: number; windowSeconds: number }, now: number): number {
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
    // Still full: forget the oldest windows rather than grow without bound.
    for (const key of this.windows.keys()) {
      if (this.windows.size < MAX_KEYS) break;
      this.windows.delete(key);
    }
  }
}
