/** Longest wait between two attempts: a day, whatever the backoff asks. */
export const MAX_BACKOFF_MS = 86_400_000;

/** Milliseconds before the attempt after `attempt` (1-based) failed. */
export function backoffDelay(type: 'exponential' | 'fixed', delay: number, attempt: number): number {
  const ms = type === 'fixed' ? delay : delay * 2 ** Math.max(0, attempt - 1);
  return Math.min(ms, MAX_BACKOFF_MS);
}
