/** Index advice derivation (pure): query shapes, the composite index for each, and whether an index serves it. */
import t from 'tap';
import type { ResolvedObject } from '../../metadata/types.ts';
import { adviseColumns, indexServes, indexShapeOf, plainIndexSorts } from '../../plugins/data/advice/indexShape.ts';
import { createSlowQueryRecorder } from '../../plugins/data/advice/slowQueryRecorder.ts';
import { adviceIndexName } from '../../plugins/data/advice/buildIndexAdvice.ts';
import { loadTicket } from './adviceFixtures.ts';

const ticket: ResolvedObject = await loadTicket();

t.test('the issue example: equality, then the sort in order, the range column folded into it', async (t) => {
  const shape = indexShapeOf({ where: JSON.stringify({ status: 'open', priority: { $gte: 4 } }), orderBy: '-priority,due_date' }, ticket)!;
  t.same(shape.equality, ['status']);
  t.same(shape.range, ['priority']);
  t.same(shape.sort, [{ column: 'priority', direction: 'desc' }, { column: 'due_date', direction: 'asc' }]);
  t.same(adviseColumns(shape), ['status', 'priority', 'due_date']);
});

t.test('operators by kind; $or, $ne, unknown fields and id sorts are left out', async (t) => {
  const shape = indexShapeOf({
    where: { $and: [{ area: { $eq: 'north' } }, { status: { $in: ['open'] } }], due_date: { $between: ['2026-01-01', '2026-02-01'] }, title: { $ne: 'x' }, $or: [{ priority: 1 }], nope: 1 },
    orderBy: [{ field: 'id', order: 'desc' }],
  }, ticket)!;
  t.same(shape.equality, ['area', 'status'], '$eq and a one-value $in are equalities, sorted');
  t.same(shape.range, ['due_date'], '$between is a range');
  t.same(shape.sort, [], 'a sort on id alone needs no column');
  t.same(adviseColumns(shape), ['area', 'status', 'due_date'], 'ranges go after the equalities when nothing is sorted');
  t.equal(indexShapeOf({ where: { title: { $contains: 'x' } } }, ticket), null, 'nothing an index serves: no shape');
  t.same(indexShapeOf({ where: { status: 'open', priority: { $eq: 3 } } }, ticket)!.range, [], 'a field fixed by equality is no range');
});

t.test('which existing index serves an advice', async (t) => {
  t.ok(indexServes(['status', 'priority', 'due_date'], ['status', 'priority', 'due_date'], 1), 'the same columns');
  t.ok(indexServes(['status', 'priority', 'due_date', 'title'], ['status', 'priority', 'due_date'], 1), 'a longer index with the advice as prefix');
  t.ok(indexServes(['status', 'area', 'due_date'], ['area', 'status', 'due_date'], 2), 'equality columns in any order');
  t.notOk(indexServes(['status'], ['status', 'priority', 'due_date'], 1), 'a single-column index does not');
  t.notOk(indexServes(['status', 'due_date', 'priority'], ['status', 'priority', 'due_date'], 1), 'sort columns out of order do not');
  t.notOk(indexServes(['priority', 'status', 'due_date'], ['status', 'priority', 'due_date'], 1), 'a range column before the equality does not');
  t.notOk(plainIndexSorts(indexShapeOf({ where: { status: 'open' }, orderBy: '-priority,due_date' }, ticket)!), 'mixed sort directions: an all-ascending index cannot give the order');
  t.ok(plainIndexSorts(indexShapeOf({ where: { status: 'open' }, orderBy: '-priority,-due_date' }, ticket)!), 'one direction: read backwards');
});

t.test('the recorder: threshold, totals, bound per environment', async (t) => {
  let clock = 1000;
  const recorder = createSlowQueryRecorder(50, 2, () => clock++);
  const a = indexShapeOf({ where: { status: 'a' } }, ticket)!;
  const b = indexShapeOf({ where: { area: 'b' } }, ticket)!;
  const c = indexShapeOf({ where: { title: 'c' } }, ticket)!;
  recorder.record('env', a, 49);
  t.same(recorder.shapes('env'), [], 'under the threshold: not recorded');
  recorder.record('env', a, 60);
  recorder.record('env', a, 100);
  recorder.record('env', b, 70);
  t.same(recorder.shapes('env').map((s) => [s.shape.equality[0], s.count, s.totalMs, s.maxMs]), [['status', 2, 160, 100], ['area', 1, 70, 70]], 'slowest in total first');
  recorder.record('env', a, 50);
  recorder.record('env', c, 55);
  t.same(recorder.shapes('env').map((s) => s.shape.equality[0]).sort(), ['status', 'title'], 'past the bound, the least recently slow shape goes');
  t.same(recorder.shapes('other'), [], 'environments apart');
});

t.test('advice index names', async (t) => {
  const name = adviceIndexName('ticket', ['status', 'priority', 'due_date']);
  t.match(name, /^osr_auto_ticket_[0-9a-f]{8}$/);
  t.equal(name, adviceIndexName('ticket', ['status', 'priority', 'due_date']), 'stable');
  t.not(name, adviceIndexName('ticket', ['status', 'due_date']), 'per column list');
  t.ok(adviceIndexName('x'.repeat(80), ['a']).length <= 63, 'within PostgreSQL identifiers');
});
