/** Query-time {$cel: "..."} operands: no record, the date functions, plain JS results, coded errors. */
import t from 'tap';
import { evaluateConstantExpression } from '../../metadata/cel/evaluateConstant.ts';

const now = new Date('2024-02-29T15:30:00.000Z');
const ctx = { now, user: { id: 'u1', positions: ['sales'], organizationId: 'org1' } };

t.test('results are JS values: Date for timestamps, number for ints and doubles', async (t) => {
  t.same(evaluateConstantExpression('now()', ctx), new Date('2024-02-29T15:30:00.000Z'));
  t.ok(evaluateConstantExpression('today()', ctx) instanceof Date);
  t.same(evaluateConstantExpression('addDays(today(), -7)', ctx), new Date('2024-02-22T00:00:00.000Z'));
  t.equal(evaluateConstantExpression('40 + 2', ctx), 42);
  t.equal(evaluateConstantExpression('1.5 * 2.0', ctx), 3);
  t.equal(evaluateConstantExpression('"a" + "b"', ctx), 'ab');
  t.equal(evaluateConstantExpression('daysFromNow(addMonths(today(), 1)) > 28', ctx), true);
  t.same(evaluateConstantExpression('["open", "done"]', ctx), ['open', 'done']);
  t.same(evaluateConstantExpression('[1, 2]', ctx), [1, 2]);
  t.equal(evaluateConstantExpression('user.id', ctx), 'u1');
  t.equal(evaluateConstantExpression('"sales" in user.positions', ctx), true);
});

t.test('without a context the clock is the real one', async (t) => {
  const before = Date.now();
  const value = evaluateConstantExpression('now()') as Date;
  t.ok(value.getTime() >= before && value.getTime() <= Date.now() + 1);
});

const invalid: Array<[string, string]> = [
  ['due_date', "unknown identifier 'due_date': no record is available here; use literals, user and the functions today(), now(), daysBetween(from, to), daysFromNow(date), addDays(date, days), addMonths(date, months)"],
  ['record.due_date', "unknown identifier 'record': no record is available here; use literals, user and the functions today(), now(), daysBetween(from, to), daysFromNow(date), addDays(date, days), addMonths(date, months)"],
  ['now() - duration("24h")', 'date arithmetic with + and - is not supported: use addDays(date, n) or addMonths(date, n) to shift a date, daysBetween(from, to) for the days between two dates, daysFromNow(date) for the days until a date'],
  ['yesterday()', "unknown function 'yesterday()'; available: today(), now(), daysBetween(from, to), daysFromNow(date), addDays(date, days), addMonths(date, months) and the CEL built-ins (size, contains, startsWith, matches, int, double, string, has, ...)"],
  ['now(', 'syntax error: Unexpected token: EOF'],
  ['{"a": 1}', 'the result must be a timestamp, number, string, boolean or a list of those'],
  ['1 / 0', 'division by zero'],
  ['', 'the expression is empty'],
];

for (const [source, reason] of invalid) {
  t.test(`refused: ${source || '(empty)'}`, async (t) => {
    t.throws(() => evaluateConstantExpression(source, ctx), {
      code: 'VALIDATION_ERROR',
      status: 400,
      details: { expression: source, reason },
      message: `The request is not valid: $cel expression '${source}' is not valid: ${reason}`,
    });
  });
}

t.test('a refused expression is refused again from the cache', async (t) => {
  t.throws(() => evaluateConstantExpression('nope', ctx), { code: 'VALIDATION_ERROR' });
  t.throws(() => evaluateConstantExpression('nope', ctx), { code: 'VALIDATION_ERROR', details: { expression: 'nope' } });
});
