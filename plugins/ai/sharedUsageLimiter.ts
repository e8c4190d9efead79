import { codedError, isCodedError } from '../../kernel/errors.ts';
import type { EventsCounter } from '../../capabilities/eventsCounter.ts';
import type { UsageLimiter, UsageLimits } from './usageLimiter.ts';

const MINUTE = 60_000;
const DAY = 86_400_000;

export interface AiUsageLimiter {
  /** Counts one AI request of `user`: RATE_LIMITED past this process's count or, with Redis, every process's. */
  admit(user: string): Promise<void>;
  /** Adds the provider tokens a request used, here and in Redis. */
  spend(user: string, tokens: number): Promise<void>;
  /** Counts through the shared counter from now on, keys prefixed with `prefix` (null: this process only). */
  share(counter: EventsCounter | null, prefix: string, onError: (error: unknown) => void): void;
  close(): Promise<void>;
}

/**
 * The per-user AI limits over every runtime process when Redis is configured: the same fixed
 * windows (a minute for requests, a UTC day for tokens) counted in Redis, keyed by window. The
 * process's own count stays in force too, and alone while Redis does not answer.
 */
export function sharedUsageLimiter(limits: UsageLimits, local: UsageLimiter, now: () => number = Date.now): AiUsageLimiter {
  let shared: EventsCounter | null = null;
  let prefix = '';
  let onError: (error: unknown) => void = () => undefined;
  const add = async (key: string, amount: number, windowMs: number) => (await shared!.hit(`${prefix}${key}`, windowMs, amount)).count;
  return {
    async admit(user) {
      local.admit(user);
      if (!shared) return;
      const t = now();
      const minute = Math.floor(t / MINUTE);
      const day = Math.floor(t / DAY);
      try {
        if ((await add(`tokens|${user}|${day}`, 0, DAY)) >= limits.tokensPerDay) {
          throw codedError('RATE_LIMITED', { retryAfter: Math.ceil(((day + 1) * DAY - t) / 1000), limit: 'ai.tokensPerDay', tokensPerDay: limits.tokensPerDay });
        }
        if ((await add(`requests|${user}|${minute}`, 1, MINUTE)) > limits.requestsPerMinute) {
          throw codedError('RATE_LIMITED', { retryAfter: Math.ceil(((minute + 1) * MINUTE - t) / 1000), limit: 'ai.requestsPerMinute', requestsPerMinute: limits.requestsPerMinute });
        }
      } catch (error) {
        if (isCodedError(error)) throw error;
        onError(error);
      }
    },
    async spend(user, tokens) {
      local.spend(user, tokens);
      if (!shared) return;
      try {
        await add(`tokens|${user}|${Math.floor(now() / DAY)}`, tokens, DAY);
      } catch (error) {
        onError(error);
      }
    },
    share(counter, keyPrefix, errors) {
      shared = counter;
      prefix = keyPrefix;
      onError = errors;
    },
    async close() {
      shared = null;
    },
  };
}
