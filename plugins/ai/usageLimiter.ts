import { codedError } from '../../kernel/errors.ts';

const MINUTE = 60_000;
const DAY = 86_400_000;

export interface UsageLimits {
  requestsPerMinute: number;
  tokensPerDay: number;
}

export interface UsageLimiter {
  /** Counts one AI request of `user`; RATE_LIMITED when the minute's requests or the day's tokens are used up. */
  admit(user: string): void;
  /** Adds the provider tokens a request used. */
  spend(user: string, tokens: number): void;
}

/**
 * Per-user limits in fixed windows (a minute for requests, a UTC day for tokens), kept in this
 * process: each runtime process counts its own (docs/ai.md). Bounded: windows past are dropped.
 */
export function createUsageLimiter(limits: UsageLimits, now: () => number = Date.now): UsageLimiter {
  const requests = new Map<string, { window: number; count: number }>();
  const tokens = new Map<string, { window: number; used: number }>();
  const prune = () => {
    const minute = Math.floor(now() / MINUTE);
    const day = Math.floor(now() / DAY);
    for (const [key, v] of requests) if (v.window !== minute) requests.delete(key);
    for (const [key, v] of tokens) if (v.window !== day) tokens.delete(key);
  };
  return {
    admit(user) {
      if (requests.size + tokens.size > 10_000) prune();
      const t = now();
      const minute = Math.floor(t / MINUTE);
      const day = Math.floor(t / DAY);
      const spent = tokens.get(user);
      if (spent && spent.window === day && spent.used >= limits.tokensPerDay) {
        throw codedError('RATE_LIMITED', { retryAfter: Math.ceil(((day + 1) * DAY - t) / 1000), limit: 'ai.tokensPerDay', tokensPerDay: limits.tokensPerDay });
      }
      const r = requests.get(user);
      const current = r && r.window === minute ? r : { window: minute, count: 0 };
      if (current.count >= limits.requestsPerMinute) {
        throw codedError('RATE_LIMITED', { retryAfter: Math.ceil(((minute + 1) * MINUTE - t) / 1000), limit: 'ai.requestsPerMinute', requestsPerMinute: limits.requestsPerMinute });
      }
      current.count++;
      requests.set(user, current);
    },
    spend(user, used) {
      const day = Math.floor(now() / DAY);
      const s = tokens.get(user);
      if (s && s.window === day) s.used += used;
      else tokens.set(user, { window: day, used });
    },
  };
}
