import { codedError } from '../../kernel/errors.ts';
import type { PhoneNumberOptions } from './phoneNumberOptions.ts';

const HOUR_MS = 3_600_000;
/** Bounds memory under a flood of distinct numbers or addresses; stale entries are swept first. */
const MAX_KEYS = 100_000;

type Limits = Pick<PhoneNumberOptions, 'cooldownSeconds' | 'hourlyCap' | 'perIp'>;

/**
 * Limits on sending SMS codes, in process memory: a cooldown between two codes to one number, a
 * cap per number within any rolling hour (the send times are kept, at most `hourlyCap` of them),
 * and a fixed-window count per client IP. Like RateLimiter, `hit` throws RATE_LIMITED with the
 * seconds to wait, so a shared store can replace it behind the same call.
 */
export class PhoneCodeLimiter {
  private sends = new Map<string, number[]>();
  private ips = new Map<string, { count: number; resetAt: number }>();

  constructor(private readonly limits: Limits, private readonly now: () => number = Date.now) {}

  /** Count one code request from `ip` for `phone` (E.164) in an environment; throw when over a limit. */
  hit(input: { environmentId: string; ip: string; phone: string }): void {
    const now = this.now();
    const ipWait = this.countIp(input.ip, now);
    if (ipWait > 0) throw codedError('RATE_LIMITED', { retryAfter: ipWait, limit: 'phoneCode.perIp' });
    const key = `${input.environmentId}|${input.phone}`;
    const recent = (this.sends.get(key) ?? []).filter((at) => at > now - HOUR_MS);
    const last = recent[recent.length - 1];
    const { cooldownSeconds, hourlyCap } = this.limits;
    if (last !== undefined && now - last < cooldownSeconds * 1000) {
      throw codedError('RATE_LIMITED', { retryAfter: seconds(last + cooldownSeconds * 1000 - now), limit: 'phoneCode.cooldown' });
    }
    if (recent.length >= hourlyCap) {
      throw codedError('RATE_LIMITED', { retryAfter: seconds(recent[recent.length - hourlyCap]! + HOUR_MS - now), limit: 'phoneCode.hourlyCap' });
    }
    if (!this.sends.has(key) && this.sends.size >= MAX_KEYS) this.sweep(now);
    recent.push(now);
    this.sends.set(key, recent.slice(-hourlyCap));
  }

  private countIp(ip: string, now: number): number {
    const rule = this.limits.perIp;
    let window = this.ips.get(ip);
    if (!window || window.resetAt <= now) {
      if (!window && this.ips.size >= MAX_KEYS) this.sweep(now);
      window = { count: 0, resetAt: now + rule.windowSeconds * 1000 };
      this.ips.set(ip, window);
    }
    window.count += 1;
    return window.count > rule.max ? seconds(window.resetAt - now) : 0;
  }

  private sweep(now: number): void {
    for (const [key, times] of this.sends) if (times[times.length - 1]! <= now - HOUR_MS) this.sends.delete(key);
    for (const [key, window] of this.ips) if (window.resetAt <= now) this.ips.delete(key);
    // Still full: forget the oldest entries rather than grow without bound.
    for (const map of [this.sends, this.ips] as Array<Map<string, unknown>>) {
      for (const key of map.keys()) {
        if (map.size < MAX_KEYS) break;
        map.delete(key);
      }
    }
  }
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));
