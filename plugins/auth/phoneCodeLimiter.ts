import type { EventsCounter } from '../../capabilities/eventsCounter.ts';
import { rateLimited, WindowRateLimiter } from '../../kernel/windowRateLimiter.ts';
import type { PhoneNumberOptions } from './phoneNumberOptions.ts';
import { AUTH_RATE_PREFIX } from './rateLimiter.ts';

type Limits = Pick<PhoneNumberOptions, 'cooldownSeconds' | 'hourlyCap' | 'perIp'>;

/**
 * Limits on sending SMS codes, counted by the runtime's one limiter (kernel/windowRateLimiter.ts):
 * a fixed-window count per client IP (in Redis when one is configured, like the auth families),
 * then, per number in its environment, a cooldown between two texted codes and a cap within any
 * rolling hour (exact in this process, and held across processes through the shared count:
 * WindowRateLimiter.waitRolling).
 */
export class PhoneCodeLimiter {
  private readonly windows: WindowRateLimiter;

  constructor(private readonly limits: Limits, now: () => number = Date.now) {
    this.windows = new WindowRateLimiter('phoneCode', now);
  }

  /** Count the per-IP window in Redis from now on; a failed Redis call falls back to this process's count. */
  share(counter: EventsCounter | null, onError: (error: unknown) => void = () => undefined): void {
    this.windows.share(counter, AUTH_RATE_PREFIX, onError);
  }

  async close(): Promise<void> {
    await this.windows.close();
  }

  /** Count one code request from `ip` for `phone` (E.164) in an environment; throw when over a limit. */
  async hit(input: { environmentId: string; ip: string; phone: string }): Promise<void> {
    const ipWait = await this.windows.wait(`phoneCode|ip|${input.ip}`, this.limits.perIp);
    if (ipWait > 0) throw rateLimited(ipWait, 'phoneCode.perIp');
    const refused = await this.windows.waitRolling(`${input.environmentId}|${input.phone}`, { max: this.limits.hourlyCap, windowSeconds: 3_600, spacingSeconds: this.limits.cooldownSeconds });
    if (refused) throw rateLimited(refused.retryAfter, refused.by === 'spacing' ? 'phoneCode.cooldown' : 'phoneCode.hourlyCap');
  }
}
