/** Formulas and rules: type-checked at load against the object's fields, evaluated over API-shaped records. */
import t from 'tap';
import { compileExpression, compileFormula } from '../../metadata/cel/compileExpression.ts';
import type { FieldDefinition } from '../../metadata/types.ts';

const fields: Record<string, FieldDefinition> = {
  title: { type: 'text' },
  amount: { type: 'currency' },
  probability: { type: 'percent' },
  quantity: { type: 'integer' },
  done: { type: 'boolean' },
  due_date: { type: 'date' },
  closed_at: { type: 'datetime' },
  status: { type: 'select', options: ['open', 'done'] },
  tags: { type: 'multiselect', options: ['a', 'b'] },
  account: { type: 'lookup', reference: 'account' },
  meta: { type: 'json' },
  number: { type: 'autonumber' },
  expected: { type: 'formula', expression: 'record.amount * record.probability / 100.0', returns: 'number' },
};
const task = { name: 'deal', fields };
const now = new Date('2024-02-29T15:30:00Z');
const location = { file: 'objects/deal.json', path: 'fields.x.expression' };

const value = (source: string, record: Record<string, unknown>, expected?: Parameters<typeof compileExpression>[2]) =>
  compileExpression(source, task, expected).evaluate(record, { now });

t.test('the result type is the CEL type of the expression', async (t) => {
  t.equal(compileExpression('record.amount * 2.0', task).type, 'double');
  t.equal(compileExpression('record.quantity + 1', task).type, 'int');
  t.equal(compileExpression('record.due_date', task).type, 'google.protobuf.Timestamp');
  t.equal(compileExpression('record.tags', task).type, 'list<string>');
  t.equal(compileExpression('record.expected > 10.0', task).type, 'bool');
  t.equal(compileExpression('record.meta.deep.key', task).type, 'dyn');
});

t.test('due_date == today() is true when the date is today', async (t) => {
  t.equal(value('record.due_date == today()', { due_date: '2024-02-29' }), true);
  t.equal(value('record.due_date == today()', { due_date: '2024-02-28' }), false);
  t.equal(value('record.due_date == today()', { due_date: '2024-03-01' }), false);
  const today = new Date().toISOString().slice(0, 10);
  t.equal(compileExpression('record.due_date == today()', task).evaluate({ due_date: today }), true, 'with the real clock');
  t.equal(value('record.closed_at == today()', { closed_at: '2024-02-29T15:30:00Z' }), false, 'a datetime is an instant, not a day');
  t.equal(value('daysBetween(record.closed_at, today()) == 0', { closed_at: '2024-02-29T15:30:00Z' }), true);
});

t.test('API values convert per field type and results come back as plain JS', async (t) => {
  t.equal(value('record.quantity * 3', { quantity: 4 }), 12, 'int in, number (not BigInt) out');
  t.equal(value('record.amount * record.probability / 100.0', { amount: 1000, probability: 25 }), 250);
  t.equal(value('record.done && record.status == "done"', { done: true, status: 'done' }), true);
  t.equal(value('"b" in record.tags', { tags: ['a', 'b'] }), true);
  t.equal(value('record.account == "acc_1"', { account: 'acc_1' }), true);
  t.equal(value('record.account == "acc_1"', { account: { id: 'acc_1', name: 'Acme' } }), true, 'an expanded lookup reads its id');
  t.equal(value('record.meta.level == "gold"', { meta: { level: 'gold' } }), true);
  t.equal(value('record.title.startsWith("Big")', { title: 'Big deal' }), true);
  t.equal(value('record.number', { number: 'LEAD-0001' }), 'LEAD-0001');
  t.equal(value('addDays(record.due_date, 1)', { due_date: '2024-02-28' }, 'date'), '2024-02-29', "date formula -> 'YYYY-MM-DD'");
  t.equal(value('addMonths(record.closed_at, 1)', { closed_at: '2024-01-31T10:00:00.000Z' }, 'datetime'), '2024-02-29T10:00:00.000Z', 'datetime formula -> ISO');
  t.equal(value('record.quantity', { quantity: '7' }), 7, 'numeric strings (PostgreSQL bigint) convert');
  t.equal(value('record.done', { done: 1 }), true, 'SQLite 0/1 booleans convert');
  t.equal(value('record.created_at == today()', { created_at: '2024-02-29T00:00:00.000Z' }), true, 'system fields are typed too');
  t.equal(value('record.version + 1', { version: 3 }), 4);
});

t.test('null rule: a formula over a null field is null, a rule over one yields null', async (t) => {
  t.equal(value('record.amount * record.probability / 100.0', { amount: null, probability: 50 }, 'number'), null);
  t.equal(value('record.amount * 2.0', {}, 'number'), null, 'absent is null');
  t.equal(value('record.amount >= 0.0', { amount: null }, 'boolean'), null);
  t.equal(value('record.amount >= 0.0', { amount: -1 }, 'boolean'), false);
  t.equal(value('has(record.amount) ? record.amount : 0.0', { amount: null }, 'number'), 0, 'has() branches on presence');
  t.equal(value('record.status == "done" || record.amount > 0.0', { status: 'done', amount: null }, 'boolean'), true, 'a decided || does not need the null field');
  t.equal(value('daysBetween(record.due_date, today()) > 0', { due_date: null }, 'boolean'), null);
});

t.test('a formula can read another formula; the value is computed when the record lacks it', async (t) => {
  const big = { ...fields, big: { type: 'formula', expression: 'record.expected > 100.0', returns: 'boolean' } } satisfies Record<string, FieldDefinition>;
  const compiled = compileFormula({ name: 'deal', fields: big }, 'big');
  t.equal(compiled.evaluate({ amount: 1000, probability: 50 }), true);
  t.equal(compiled.evaluate({ amount: 100, probability: 50 }), false);
  t.equal(compiled.evaluate({ amount: 100, probability: 50, expected: 500 }), true, 'a carried value is used as is');
  t.equal(compiled.evaluate({ amount: null, probability: 50 }), null);
  t.same([...compiled.reads].sort(), ['amount', 'probability'], 'reads names the stored fields behind the formula it reads');
  t.same([...compileExpression('record.title + string(record.quantity)', task).reads].sort(), ['quantity', 'title']);
});

t.test('load-time errors name the expression and what to write instead', async (t) => {
  const reasonOf = (source: string, expected?: Parameters<typeof compileExpression>[2]): string => {
    try {
      compileExpression(source, task, expected, location);
    } catch (error) {
      const e = error as { code: string; details: Record<string, unknown>; message: string };
      t.equal(e.code, 'METADATA_INVALID');
      t.equal(e.details['file'], 'objects/deal.json');
      t.equal(e.details['path'], 'fields.x.expression');
      t.equal(e.details['expression'], source);
      return String(e.details['reason']);
    }
    return 'compiled';
  };
  const dateHint = 'date arithmetic with + and - is not supported: use addDays(date, n) or addMonths(date, n) to shift a date, daysBetween(from, to) for the days between two dates, daysFromNow(date) for the days until a date';
  t.equal(reasonOf('amount > 0.0'), "bare field reference 'amount': write 'record.amount' (in expression 'amount > 0.0')");
  t.equal(reasonOf('record.amount > threshold'), "unknown identifier 'threshold': refer to fields as 'record.<field>' (in expression 'record.amount > threshold')");
  t.equal(reasonOf('record.amout > 0.0'), "unknown field 'record.amout' of object 'deal' (did you mean 'record.amount'?) (in expression 'record.amout > 0.0')");
  t.equal(reasonOf('record.due_date + duration("24h")'), `${dateHint} (in expression 'record.due_date + duration("24h")')`);
  t.equal(reasonOf('today() - record.due_date'), `${dateHint} (in expression 'today() - record.due_date')`, 'timestamp minus timestamp');
  t.equal(reasonOf('record.due_date + 1'), `${dateHint} (in expression 'record.due_date + 1')`, 'timestamp plus int');
  t.equal(reasonOf('record.closed_at - duration("1h") > now()'), `${dateHint} (in expression 'record.closed_at - duration("1h") > now()')`, 'nested in a comparison');
  t.equal(reasonOf('daysBetwen(record.due_date, today())'), "unknown function 'daysBetwen()' (did you mean 'daysBetween()'?); available: today(), now(), daysBetween(from, to), daysFromNow(date), addDays(date, days), addMonths(date, months) and the CEL built-ins (size, contains, startsWith, matches, int, double, string, has, ...) (in expression 'daysBetwen(record.due_date, today())')");
  t.equal(reasonOf('record.title.shout()'), "unknown function 'shout()'; available: today(), now(), daysBetween(from, to), daysFromNow(date), addDays(date, days), addMonths(date, months) and the CEL built-ins (size, contains, startsWith, matches, int, double, string, has, ...) (in expression 'record.title.shout()')");
  t.equal(reasonOf('today > record.due_date'), "'today' is a function: call it as 'today()' (in expression 'today > record.due_date')");
  t.equal(reasonOf('record.amount * 2'), "type error: no such overload: double * int (CEL does not mix int and double: write 2.0 instead of 2, or convert with double(...) / int(...)) (in expression 'record.amount * 2')");
  t.equal(reasonOf('record.title +'), "syntax error: Unexpected token: EOF (in expression 'record.title +')");
  t.equal(reasonOf('record.amount * 1.5', 'integer'), "the expression yields double, but int is expected; convert with int(...) (in expression 'record.amount * 1.5')", 'formula type must match returns');
  t.equal(reasonOf('record.quantity', 'text'), "the expression yields int, but string is expected; convert with string(...) (in expression 'record.quantity')");
  t.equal(reasonOf('record.amount', 'boolean'), "the expression yields double, but bool is expected (in expression 'record.amount')", 'a validation rule must be bool');
  t.equal(reasonOf('record.quantity * 2', 'number'), 'compiled', 'an int formula may return number');
});

t.test('formulas that read each other in a cycle are refused', async (t) => {
  const cyclic: Record<string, FieldDefinition> = {
    a: { type: 'formula', expression: 'record.b + 1', returns: 'integer' },
    b: { type: 'formula', expression: 'record.a + 1', returns: 'integer' },
  };
  t.throws(() => compileFormula({ name: 'loop', fields: cyclic }, 'a', { file: 'objects/loop.json', path: 'fields.a.expression' }), {
    code: 'METADATA_INVALID',
    details: { file: 'objects/loop.json', path: 'fields.a.expression', reason: 'formulas refer to each other in a cycle: a -> b -> a' },
  });
});

t.test('runtime errors other than null fields are coded', async (t) => {
  t.throws(() => value('record.quantity / 0', { quantity: 3 }), {
    code: 'VALIDATION_ERROR', details: { expression: 'record.quantity / 0', reason: 'division by zero' },
  });
});

t.test('user is available for row policies', async (t) => {
  const compiled = compileExpression('record.account == user.id', task);
  t.equal(compiled.evaluate({ account: 'u1' }, { user: { id: 'u1', positions: [] } }), true);
  t.equal(compiled.evaluate({ account: 'u2' }, { user: { id: 'u1', positions: [] } }), false);
});
