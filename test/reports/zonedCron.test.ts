import t from 'tap';
import { checkPattern, matchesAt, parseZonedCron, utcMinutes } from '../../plugins/reports/zonedCron.ts';

t.test('patterns are parsed with their errors said', async (t) => {
  t.throws(() => parseZonedCron('0 8 * *', 'UTC'), /5 fields/);
  t.throws(() => parseZonedCron('61 8 * * *', 'UTC'), /outside 0-59/);
  t.throws(() => parseZonedCron('x 8 * * *', 'UTC'), /not a number/);
  t.throws(() => parseZonedCron('0 8 * * *', 'Mars/Olympus'), /not a known IANA time zone/);
  t.same([...parseZonedCron('0 8 * * 7', 'UTC').weekdays], [0], '7 is Sunday');
});

t.test('a pattern matches on the wall clock of its zone, daylight saving followed', async (t) => {
  const cron = parseZonedCron('30 7 * * 1-5', 'Europe/Berlin');
  t.ok(matchesAt(cron, new Date('2026-01-05T06:30:00Z')), 'Monday 07:30 CET is 06:30 UTC in winter');
  t.ok(matchesAt(cron, new Date('2026-07-06T05:30:00Z')), 'Monday 07:30 CEST is 05:30 UTC in summer');
  t.notOk(matchesAt(cron, new Date('2026-07-06T06:30:00Z')), '08:30 in summer does not match');
  t.notOk(matchesAt(cron, new Date('2026-01-04T06:30:00Z')), 'Sunday does not match');
  t.ok(matchesAt(cron, new Date('2026-01-05T06:30:59Z')), 'any second of the minute');
  const either = parseZonedCron('0 0 1 * 1', 'UTC');
  t.ok(matchesAt(either, new Date('2026-01-05T00:00:00Z')), 'both day fields restricted: a Monday matches');
  t.ok(matchesAt(either, new Date('2026-04-01T00:00:00Z')), 'and so does the 1st');
});

t.test('the hourly check runs at the UTC minutes the zone can show', async (t) => {
  t.same(utcMinutes(parseZonedCron('0 9 * * *', 'Europe/Berlin')), [0]);
  t.same(utcMinutes(parseZonedCron('0 9 * * *', 'Asia/Kolkata')), [30], 'a +05:30 zone shifts the minute');
  t.same(utcMinutes(parseZonedCron('15,45 * * * *', 'Asia/Kathmandu')), [0, 30], 'a +05:45 zone');
  t.equal(checkPattern(parseZonedCron('*/20 8 * * *', 'UTC')), '0,20,40 * * * *');
});
