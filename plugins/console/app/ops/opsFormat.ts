const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const number = new Intl.NumberFormat();

/** A time the API answered (ISO), in the user's time zone; empty for none. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : dateTime.format(d);
}

export function formatNumber(n: number): string {
  return number.format(n);
}

/** A duration in seconds as people say it: 3 d 4 h, 5 h 2 min, 40 s. */
export function formatUptime(seconds: number): string {
  const d = Math.floor(seconds / 86_400);
  const h = Math.floor((seconds % 86_400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  if (d > 0) return `${d} d ${h} h`;
  if (h > 0) return `${h} h ${m} min`;
  if (m > 0) return `${m} min ${seconds % 60} s`;
  return `${seconds} s`;
}

/** A JSON value shown in a cell or a block, cut to `max` characters. */
export function formatJson(value: unknown, max = 2000): string {
  if (value === null || value === undefined) return '';
  const text = JSON.stringify(value, null, 2);
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
