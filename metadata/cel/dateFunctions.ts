/**
 * Date functions of the expression language, over UTC calendar days. Pure: the current time
 * comes from clock.ts so an evaluation sees one instant throughout.
 */
const DAY_MS = 86_400_000;

export function startOfUtcDay(date: Date): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
}

/** Whole calendar days from `from` to `to` (time of day ignored); negative when `to` is earlier. */
export function daysBetween(from: Date, to: Date): number {
  return Math.round((startOfUtcDay(to).getTime() - startOfUtcDay(from).getTime()) / DAY_MS);
}

export function addDays(date: Date, days: number): Date {
  return checked(new Date(date.getTime() + days * DAY_MS));
}

/** Same day of month `months` later, clamped to the month's last day (Jan 31 + 1 -> Feb 28/29). */
export function addMonths(date: Date, months: number): Date {
  const monthIndex = date.getUTCFullYear() * 12 + date.getUTCMonth() + months;
  const year = Math.floor(monthIndex / 12);
  const month = monthIndex - year * 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const result = new Date(date.getTime());
  result.setUTCFullYear(year, month, Math.min(date.getUTCDate(), lastDay));
  return checked(result);
}

function checked(date: Date): Date {
  if (Number.isNaN(date.getTime())) throw new RangeError('the resulting date is out of range');
  return date;
}
