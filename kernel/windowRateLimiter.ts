import type { EventsCounter } from '../capabilities/eventsCounter.ts';
import { codedError } from './errors.ts';

/** At most `max` hits per key in each window of `windowSeconds`. */
export interface WindowRule {
  max: number;
  windowSeconds: number;
}

/**
 * At most `max` accepted hits per key within any `windowSeconds` (a rolling window over the hits
 * that were let through), and at least `spacingSeconds` between two of them.
 */
export interface RollingRule {
  max: number;
  windowSeconds: number;
  spacingSeconds?: number;
}

/** Why a rolling rule refused a hit, and the seconds to wait. */
export interface RollingRefusal {
  retryAfter: number;
  by: 'spacing' | 'max';
}

/** Bounds memory under a flood of distinct addresses; expired windows are swept first. */
const MAX_KEYS = 100_000;

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/** The refusal of a limit: 429 with the seconds to wait; `limit` names it (`signIn`, `form`, `phoneCode.perIp`). */
export const rateLimited = (retryAfter: number, limit: string) => codedError('RATE_LIMITED', { retryAfter, limit });

/**
 * The one rate limiter of the runtime (sign-ins and the other auth families, phone codes, forms,
 * share links). Fixed-window counts per key: in Redis when one is configured (every process behind
 * a load balancer shares the count), else, and while Redis does not answer, in memory. Rolling
 * windows over accepted hits (a cooldown and a cap per phone number) are kept in memory, and held
 * across processes through fixed windows of the shared store (waitRolling).
 */
export class WindowRateLimiter {
  private windows = new Map<string, { count: number; resetAt: number }>();
  private logs = new Map<string, { times: number[]; windowMs: number }>();
  private shared: EventsCounter | null = null;
  private prefix = '';
  private onSharedError: (error: unknown) => void = () => undefined;

  /** `limit` names the limit in the RATE_LIMITED error of `hit` (`form`, `share-link`). */
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
    const wait = await this.wait(key, rule);
    if (wait > 0) throw rateLimited(wait, this.limit);
  }

  /** Counts one hit in the key's fixed window: the seconds to wait, or 0 when the hit is allowed. */
  async wait(key: string, rule: WindowRule): Promise<number> {
    if (this.shared) {
      try {
        const { count, ttlMs } = await this.shared.hit(`${this.prefix}${key}`, rule.windowSeconds * 1000);
        return count > rule.max ? seconds(ttlMs) : 0;
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
    return window.count > rule.max ? seconds(window.resetAt - now) : 0;
  }

  /**
   * A hit under a rolling rule: null when allowed (the hit is then recorded), else why not and the
   * seconds to wait (a refused hit is not recorded). This process keeps the exact rolling log.
   * Where counts are shared (Redis, or the workers' primary), the rule also holds across
   * processes through two fixed windows there: one of `spacingSeconds` from an accepted hit, which
   * lets one hit through (the spacing, exact across processes), and one of `windowSeconds` from
   * the key's first hit, which lets `max` through (so across processes at most twice `max` within
   * any rolling window, and `max` in each fixed one). A shared store that does not answer leaves
   * the process's own log to decide.
   */
  async waitRolling(key: string, rule: RollingRule): Promise<RollingRefusal | null> {
    const now = this.now();
    const windowMs = rule.windowSeconds * 1000;
    const recent = (this.logs.get(key)?.times ?? []).filter((at) => at > now - windowMs);
    const last = recent[recent.length - 1];
    const spacingMs = (rule.spacingSeconds ?? 0) * 1000;
    if (last !== undefined && now - last < spacingMs) return { retryAfter: seconds(last + spacingMs - now), by: 'spacing' };
    if (recent.length >= rule.max) return { retryAfter: seconds(recent[recent.length - rule.max]! + windowMs - now), by: 'max' };
    if (this.shared) {
      try {
        const refused = await this.sharedRolling(this.shared, `${this.prefix}${key}`, rule);
        if (refused) return refused;
      } catch (error) {
        this.onSharedError(error);
      }
    }
    if (!this.logs.has(key) && this.logs.size >= MAX_KEYS) this.sweep(now);
    recent.push(now);
    this.logs.set(key, { times: recent.slice(-rule.max), windowMs });
    return null;
  }

  /** The shared part of a rolling rule: the cap read first (a hit the spacing refuses is not counted), then the spacing, then the cap. */
  private async sharedRolling(counter: EventsCounter, key: string, rule: RollingRule): Promise<RollingRefusal | null> {
    const windowMs = rule.windowSeconds * 1000;
    const capped = await counter.hit(`${key}|max`, windowMs, 0);
    if (capped.count >= rule.max) return { retryAfter: seconds(capped.ttlMs), by: 'max' };
    if (rule.spacingSeconds) {
      const spaced = await counter.hit(`${key}|spacing`, rule.spacingSeconds * 1000);
      if (spaced.count > 1) return { retryAfter: seconds(spaced.ttlMs), by: 'spacing' };
    }
    const counted = await counter.hit(`${key}|max`, windowMs);
    return counted.count > rule.max ? { retryAfter: seconds(counted.ttlMs), by: 'max' } : null;
  }

  private sweep(now: number): void {
    for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
    for (const [key, log] of this.logs) if (log.times[log.times.length - 1]! <= now - log.windowMs) this.logs.delete(key);
    // Still full: forget the oldest entries rather than grow without bound.
    for (const map of [this.windows, this.logs] as Array<Map<string, unknown>>) {
      for (const key of map.keys()) {
        if (map.size < MAX_KEYS) break;
        map.delete(key);
      }
    }
  }
}
