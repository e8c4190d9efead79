/** The date functions of the expression language, pure and through CEL, at a fixed instant. */
import t from 'tap';
import { addDays, addMonths, daysBetween, startOfUtcDay } from '../../metadata/cel/dateFunctions.ts';
import { evaluateConstantExpression } from '../../metadata/cel/evaluateConstant.ts';

const now = new Date('2024-02-29T15:30:45.500Z');
const run = (source: string, at: Date = now): unknown => evaluateConstantExpression(source, { now: at });
const ts = (iso: string) => `timestamp("${iso}")`;
const iso = (value: unknown) => (value as Date).toISOString();

t.test('today() is midnight UTC of the current day; now() is the instant', async (t) => {
  t.equal(iso(run('today()')), '2024-02-29T00:00:00.000Z');
  t.equal(iso(run('now()')), '2024-02-29T15:30:45.500Z');
  t.equal(iso(run('today()', new Date('2024-03-01T00:00:00.000Z'))), '2024-03-01T00:00:00.000Z');
  t.equal(iso(run('today()', new Date('2024-03-01T23:59:59.999Z'))), '2024-03-01T00:00:00.000Z');
  t.equal(startOfUtcDay(new Date('1999-12-31T23:00:00-05:00')).toISOString(), '2000-01-01T00:00:00.000Z');
});

t.test('daysBetween counts whole calendar days, ignoring the time of day', async (t) => {
  t.equal(run(`daysBetween(${ts('2024-01-01T00:00:00Z')}, ${ts('2024-03-01T00:00:00Z')})`), 60, '2024 is a leap year');
  t.equal(run(`daysBetween(${ts('2023-01-01T00:00:00Z')}, ${ts('2023-03-01T00:00:00Z')})`), 59);
  t.equal(run(`daysBetween(${ts('2024-01-01T23:59:00Z')}, ${ts('2024-01-02T00:01:00Z')})`), 1, 'two minutes across midnight is one day');
  t.equal(run(`daysBetween(${ts('2024-01-02T00:01:00Z')}, ${ts('2024-01-02T23:59:00Z')})`), 0);
  t.equal(run(`daysBetween(${ts('2024-03-10T00:00:00Z')}, ${ts('2024-03-01T00:00:00Z')})`), -9, 'negative when the second date is earlier');
  t.equal(run(`daysBetween(today(), today())`), 0);
  t.equal(daysBetween(new Date('2023-12-31T12:00:00Z'), new Date('2025-01-01T12:00:00Z')), 367);
});

t.test('daysFromNow counts days from today to the date', async (t) => {
  t.equal(run(`daysFromNow(${ts('2024-03-07T08:00:00Z')})`), 7);
  t.equal(run(`daysFromNow(${ts('2024-02-28T23:00:00Z')})`), -1);
  t.equal(run('daysFromNow(now())'), 0);
  t.equal(run(`daysFromNow(${ts('2025-02-28T00:00:00Z')})`), 365, 'across the leap day');
});

t.test('addDays shifts by whole days and keeps the time of day', async (t) => {
  t.equal(iso(run('addDays(today(), 1)')), '2024-03-01T00:00:00.000Z', 'after Feb 29 comes Mar 1');
  t.equal(iso(run('addDays(now(), -60)')), '2023-12-31T15:30:45.500Z');
  t.equal(iso(run(`addDays(${ts('2023-02-28T10:00:00Z')}, 1)`)), '2023-03-01T10:00:00.000Z', 'no Feb 29 in 2023');
  t.equal(iso(run('addDays(today(), 0)')), '2024-02-29T00:00:00.000Z');
  t.equal(addDays(new Date('2024-12-31T00:00:00Z'), 1).toISOString(), '2025-01-01T00:00:00.000Z');
});

t.test('addMonths clamps to the end of the month', async (t) => {
  t.equal(iso(run(`addMonths(${ts('2024-01-31T09:15:00Z')}, 1)`)), '2024-02-29T09:15:00.000Z', 'leap year February');
  t.equal(iso(run(`addMonths(${ts('2023-01-31T09:15:00Z')}, 1)`)), '2023-02-28T09:15:00.000Z', 'common year February');
  t.equal(iso(run(`addMonths(${ts('2024-03-31T00:00:00Z')}, 1)`)), '2024-04-30T00:00:00.000Z');
  t.equal(iso(run(`addMonths(${ts('2024-03-31T00:00:00Z')}, -1)`)), '2024-02-29T00:00:00.000Z', 'backwards too');
  t.equal(iso(run('addMonths(today(), 12)')), '2025-02-28T00:00:00.000Z', 'Feb 29 plus a year');
  t.equal(iso(run('addMonths(today(), 48)')), '2028-02-29T00:00:00.000Z', 'Feb 29 plus four years');
  t.equal(iso(run(`addMonths(${ts('2024-11-15T00:00:00Z')}, 3)`)), '2025-02-15T00:00:00.000Z', 'across the year end');
  t.equal(iso(run(`addMonths(${ts('2024-01-15T00:00:00Z')}, -13)`)), '2022-12-15T00:00:00.000Z');
  t.equal(addMonths(new Date('2024-05-31T00:00:00Z'), 0).toISOString(), '2024-05-31T00:00:00.000Z');
});

t.test('the functions check their argument types', async (t) => {
  t.throws(() => run('addDays(today(), 1.5)'), { code: 'VALIDATION_ERROR', details: { reason: "wrong arguments: found no matching overload for 'addDays(google.protobuf.Timestamp, double)'" } });
  t.throws(() => run('daysBetween("2024-01-01", today())'), { code: 'VALIDATION_ERROR', details: { reason: "wrong arguments: found no matching overload for 'daysBetween(string, google.protobuf.Timestamp)'" } });
});

t.test('a date out of range is an evaluation error, not an Invalid Date', async (t) => {
  t.throws(() => run('addDays(today(), 999999999)'), { code: 'VALIDATION_ERROR', details: { expression: 'addDays(today(), 999999999)' } });
});
