import type { EventsCounter } from '../../capabilities/eventsCounter.ts';
import { rateLimited, WindowRateLimiter } from '../../kernel/windowRateLimiter.ts';
import type { RateFamily, RateLimitOptions } from './authOptions.ts';

/** Where the auth families count in Redis: `osr:ratelimit:<family>|ip|...`, `...|account|<environment>|...`. */
export const AUTH_RATE_PREFIX = 'osr:ratelimit:';

/**
 * The auth families' limits (sign-in, password reset, verification, client registration) per IP
 * and per account, counted by the runtime's one limiter (kernel/windowRateLimiter.ts): in Redis
 * when one is configured, else (and while Redis does not answer) in process memory.
 */
export class RateLimiter {
  private readonly windows: WindowRateLimiter;

  constructor(private readonly options: RateLimitOptions, now: () => number = Date.now) {
    this.windows = new WindowRateLimiter('auth', now);
  }

  async close(): Promise<void> {
    await this.windows.close();
  }

  /** Count in Redis from now on; a failed Redis call falls back to this process's count. */
  share(counter: EventsCounter | null, onError: (error: unknown) => void = () => undefined): void {
    this.windows.share(counter, AUTH_RATE_PREFIX, onError);
  }

  /**
   * Count one attempt of `family` from this IP (for every environment) and for this account (in
   * its environment); throw RATE_LIMITED with the seconds to wait when either is over its limit.
   */
  async hit(family: RateFamily, input: { environmentId: string; ip: string; account?: string | null }): Promise<void> {
    if (!this.options.enabled) return;
    const rules = this.options[family];
    let wait = await this.windows.wait(`${family}|ip|${input.ip}`, rules.perIp);
    if (input.account && 'perAccount' in rules) wait = Math.max(wait, await this.windows.wait(`${family}|account|${input.environmentId}|${input.account.trim().toLowerCase()}`, rules.perAccount));
    if (wait > 0) throw rateLimited(wait, family);
  }
}
