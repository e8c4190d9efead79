import { codedError } from '../../kernel/errors.ts';
import type { RateFamily, RateLimitOptions } from './authOptions.ts';

interface Window {
  count: number;
  resetAt: number;
}

/** Bounds memory under a flood of distinct keys; expired windows are swept first. */
const MAX_KEYS = 100_000;

/**
 * Fixed-window counters per IP and per account, in process memory. Several processes behind a
 * load balancer each count on their own (a shared store such as Redis would be needed for one
 * limit across them).
 */
export class RateLimiter {
  private windows = new Map<string, Window>();

  constructor(private readonly options: RateLimitOptions, private readonly now: () => number = Date.now) {}

  /**
   * Count one attempt of `family` from this IP (for every environment) and for this account (in
   * its environment); throw RATE_LIMITED with the seconds to wait when either is over its limit.
   */
  hit(family: RateFamily, input: { environmentId: string; ip: string; account?: string | null }): void {
    if (!this.options.enabled) return;
    const rules = this.options[family];
    const now = this.now();
    let wait = 0;
    wait = Math.max(wait, this.count(`${family}|ip|${input.ip}`, rules.perIp, now));
    if (input.account) wait = Math.max(wait, this.count(`${family}|account|${input.environmentId}|${input.account.trim().toLowerCase()}`, rules.perAccount, now));
    if (wait > 0) throw codedError('RATE_LIMITED', { retryAfter: wait, limit: family });
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
