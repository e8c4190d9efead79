/** A 5-field cron pattern (minute hour day-of-month month day-of-week), in UTC. */
export interface CronPattern {
  minutes: Set<number>;
  hours: Set<number>;
  days: Set<number>;
  months: Set<number>;
  weekdays: Set<number>;
  /** Day-of-month and day-of-week both restricted: either matches (as in cron). */
  dayOr: boolean;
}

const RANGES: [number, number][] = [[0, 59], [0, 23], [1, 31], [1, 12], [0, 7]];

/** Parses `*`, numbers, ranges `a-b`, steps `x/n` and lists; throws a sentence that says what is wrong. */
export function parseCron(pattern: string): CronPattern {
  const parts = pattern.trim().split(/\s+/);
  if (parts.length !== 5) throw new Error(`cron pattern '${pattern}' must have 5 fields (minute hour day month weekday), not ${parts.length}`);
  const sets = parts.map((part, i) => parseField(part, RANGES[i]!, pattern));
  const weekdays = sets[4]!;
  if (weekdays.delete(7)) weekdays.add(0);
  return {
    minutes: sets[0]!, hours: sets[1]!, days: sets[2]!, months: sets[3]!, weekdays,
    dayOr: parts[2] !== '*' && parts[4] !== '*',
  };
}

function parseField(field: string, [min, max]: [number, number], pattern: string): Set<number> {
  const out = new Set<number>();
  for (const item of field.split(',')) {
    const match = /^(\*|\d+(?:-\d+)?)(?:\/(\d+))?$/.exec(item);
    if (!match) throw new Error(`cron pattern '${pattern}': '${item}' is not a number, range, * or step`);
    const step = match[2] ? Number(match[2]) : 1;
    let [from, to] = match[1] === '*' ? [min, max] : match[1]!.split('-').map(Number) as [number, number?];
    if (to === undefined) to = match[2] ? max : from;
    if (step < 1 || from < min || to > max || from > to) throw new Error(`cron pattern '${pattern}': '${item}' is outside ${min}-${max}`);
    for (let v = from; v <= to; v += step) out.add(v);
  }
  return out;
}

/** First minute strictly after `after` that the pattern matches (searches at most 5 years ahead). */
export function nextCronTime(cron: CronPattern, after: Date): Date {
  const t = new Date(after.getTime());
  t.setUTCSeconds(0, 0);
  t.setUTCMinutes(t.getUTCMinutes() + 1);
  const limit = after.getTime() + 5 * 366 * 86_400_000;
  while (t.getTime() <= limit) {
    if (!cron.months.has(t.getUTCMonth() + 1)) {
      t.setUTCMonth(t.getUTCMonth() + 1, 1);
      t.setUTCHours(0, 0);
      continue;
    }
    const dom = cron.days.has(t.getUTCDate());
    const dow = cron.weekdays.has(t.getUTCDay());
    if (!(cron.dayOr ? dom || dow : dom && dow)) {
      t.setUTCDate(t.getUTCDate() + 1);
      t.setUTCHours(0, 0);
      continue;
    }
    if (!cron.hours.has(t.getUTCHours())) {
      t.setUTCHours(t.getUTCHours() + 1, 0);
      continue;
    }
    if (!cron.minutes.has(t.getUTCMinutes())) {
      t.setUTCMinutes(t.getUTCMinutes() + 1);
      continue;
    }
    return t;
  }
  throw new Error('cron pattern matches no time in the next 5 years');
}
