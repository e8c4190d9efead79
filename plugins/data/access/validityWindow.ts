export interface Window {
  valid_from?: unknown;
  valid_until?: unknown;
}

function instant(value: unknown): number | null | 'invalid' {
  if (value === null || value === undefined || value === '') return null;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'invalid' : value.getTime();
  if (typeof value !== 'string') return 'invalid';
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? 'invalid' : ms;
}

/**
 * Whether an assignment holds at `now`. Fails closed: a bound that cannot be read, a start in the
 * future or an end in the past all mean "not granted". An absent bound is open.
 */
export function isActive(row: Window, now: Date): boolean {
  const from = instant(row.valid_from);
  const until = instant(row.valid_until);
  if (from === 'invalid' || until === 'invalid') return false;
  const t = now.getTime();
  if (from !== null && t < from) return false;
  if (until !== null && t >= until) return false;
  return true;
}
