/** A 5-field cron pattern (minute hour day-of-month month day-of-week) read in a time zone. */
export interface ZonedCron {
  pattern: string;
  timezone: string;
  minutes: Set<number>;
  hours: Set<number>;
  days: Set<number>;
  months: Set<number>;
  weekdays: Set<number>;
  /** Day-of-month and day-of-week both restricted: either matches (as in cron). */
  dayOr: boolean;
}

const RANGES: [number, number][] = [[0, 59], [0, 23], [1, 31], [1, 12], [0, 7]];

/** True when the runtime knows the IANA zone (`Europe/Berlin`, `UTC`). */
export function isTimeZone(name: string): boolean {
  if (name.length === 0 || name.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** Parses `*`, numbers, ranges `a-b`, steps `x/n` and lists (the syntax of jobs.queue patterns); throws a sentence saying what is wrong. */
export function parseZonedCron(pattern: string, timezone: string): ZonedCron {
  const parts = pattern.trim().split(/\s+/);
  if (parts.length !== 5) throw new Error(`must have 5 fields (minute hour day month weekday), not ${parts.length}`);
  if (!isTimeZone(timezone)) throw new Error(`'${timezone.slice(0, 64)}' is not a known IANA time zone`);
  const sets = parts.map((part, i) => parseField(part, RANGES[i]!));
  const weekdays = sets[4]!;
  if (weekdays.delete(7)) weekdays.add(0);
  return { pattern: parts.join(' '), timezone, minutes: sets[0]!, hours: sets[1]!, days: sets[2]!, months: sets[3]!, weekdays, dayOr: parts[2] !== '*' && parts[4] !== '*' };
}

function parseField(field: string, [min, max]: [number, number]): Set<number> {
  const out = new Set<number>();
  for (const item of field.split(',')) {
    const match = /^(\*|\d{1,2}(?:-\d{1,2})?)(?:\/(\d{1,2}))?$/.exec(item);
    if (!match) throw new Error(`'${item.slice(0, 20)}' is not a number, range, * or step`);
    const step = match[2] ? Number(match[2]) : 1;
    let [from, to] = match[1] === '*' ? [min, max] : (match[1]!.split('-').map(Number) as [number, number?]);
    if (to === undefined) to = match[2] ? max : from;
    if (step < 1 || from < min || to > max || from > to) throw new Error(`'${item}' is outside ${min}-${max}`);
    for (let v = from; v <= to; v += step) out.add(v);
  }
  return out;
}

interface LocalTime { minute: number; hour: number; day: number; month: number; weekday: number }

const WEEKDAYS: Record<string, number> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 };

function localTime(at: Date, timezone: string): LocalTime {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: timezone, hourCycle: 'h23', minute: 'numeric', hour: 'numeric', day: 'numeric', month: 'numeric', weekday: 'short',
  }).formatToParts(at);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return { minute: Number(part('minute')), hour: Number(part('hour')) % 24, day: Number(part('day')), month: Number(part('month')), weekday: WEEKDAYS[part('weekday')] ?? -1 };
}

/** Whether the minute holding `at` matches the pattern on the zone's wall clock. */
export function matchesAt(cron: ZonedCron, at: Date): boolean {
  const t = localTime(at, cron.timezone);
  if (!cron.minutes.has(t.minute) || !cron.hours.has(t.hour) || !cron.months.has(t.month)) return false;
  const dom = cron.days.has(t.day);
  const dow = cron.weekdays.has(t.weekday);
  return cron.dayOr ? dom || dow : dom && dow;
}

/**
 * The UTC minutes past the hour at which the zone's wall clock can show one of the pattern's
 * minutes (zones with :30 or :45 offsets shift them), over the coming year: the hourly check
 * runs at those minutes only and matches the full pattern on the zone's clock.
 */
export function utcMinutes(cron: ZonedCron, from = new Date()): number[] {
  const shifts = new Set<number>();
  for (let day = 0; day < 366; day += 1) {
    const at = new Date(from.getTime() + day * 86_400_000);
    const t = localTime(at, cron.timezone);
    // Offset minutes modulo an hour: the wall clock's minute minus the UTC minute.
    shifts.add(((t.minute - at.getUTCMinutes()) % 60 + 60) % 60);
  }
  const out = new Set<number>();
  for (const minute of cron.minutes) for (const shift of shifts) out.add(((minute - shift) % 60 + 60) % 60);
  return [...out].sort((a, b) => a - b);
}

/** The repeat pattern of the hourly check, for jobs.queue (whose patterns are UTC). */
export function checkPattern(cron: ZonedCron): string {
  return `${utcMinutes(cron).join(',')} * * * *`;
}
