/** Conditional field rules are CEL over the record, type-checked at load: a bad one fails the load naming its path. */
import t from 'tap';
import { loadApps } from '../../metadata/loadApps.ts';
import { conditionProblems, hideInvisible } from '../../metadata/fieldConditions.ts';
import { appFixture, rows, writeApp, writeApps } from './helpers.ts';

const deal = (fields: Record<string, unknown>) => ({ name: 'deal', fields: { stage: { type: 'select', options: ['open', 'lost'] }, ...fields } });

t.test('load errors name the rule', async (t) => {
  const cel = writeApp(t, { 'deal.json': deal({ a: { type: 'text', visibleWhen: 'record.stagee == "lost"' }, b: { type: 'text', requiredWhen: 'record.stage' } }) });
  const celErrors = rows((await loadApps([cel])).errors, cel);
  t.same(celErrors.map((r) => r.path).sort(), ['fields.a.visibleWhen', 'fields.b.requiredWhen'], 'an unknown field and a non-boolean rule');
  t.match(celErrors.find((r) => r.path === 'fields.a.visibleWhen')!.reason, /stagee/);
  t.match(celErrors.find((r) => r.path === 'fields.b.requiredWhen')!.reason, /bool/);

  const shape = writeApps(t, { x: appFixture({ 'deal.json': deal({ c: { type: 'formula', expression: '1', returns: 'integer', readonlyWhen: 'true' }, d: { type: 'text', readonlyWhen: '' } }) }) }).x!;
  const shapeErrors = rows((await loadApps([shape])).errors, shape);
  t.same(shapeErrors.map((r) => r.path).sort(), ['fields.c.readonlyWhen', 'fields.d.readonlyWhen']);
  t.match(shapeErrors.find((r) => r.path === 'fields.c.readonlyWhen')!.reason, /unknown key 'readonlyWhen' for a formula field/);
  t.match(shapeErrors.find((r) => r.path === 'fields.d.readonlyWhen')!.reason, /must not be empty/);
});

t.test('the pure rules: visibility decided on the record as read, write problems one per field', async (t) => {
  const dir = writeApp(t, { 'deal.json': deal({ reason: { type: 'text', visibleWhen: 'record.stage == "lost"', requiredWhen: 'record.stage == "lost"' }, discount: { type: 'number', readonlyWhen: 'record.stage == "lost"' } }) });
  const object = (await loadApps([dir])).objects.get('deal')!;
  const records = [{ id: '1', stage: 'lost', reason: 'r1' }, { id: '2', stage: 'open', reason: 'r2' }, { id: '3', reason: 'r3' }];
  hideInvisible(object, records);
  t.same(records, [{ id: '1', stage: 'lost', reason: 'r1' }, { id: '2', stage: 'open' }, { id: '3' }], 'hidden where the rule does not hold or cannot be decided');
  t.same(conditionProblems(object, { mode: 'update', sent: ['discount'], system: false, previous: { stage: 'lost', discount: 1 }, next: { stage: 'lost', discount: 2, reason: 'x' } }).map((p) => p.path), ['discount']);
  t.same(conditionProblems(object, { mode: 'update', sent: ['discount'], system: true, previous: { stage: 'lost', discount: 1 }, next: { stage: 'lost', discount: 2, reason: 'x' } }), [], 'engine work may change it');
  t.same(conditionProblems(object, { mode: 'create', sent: ['stage'], system: true, next: { stage: 'lost' } }).map((p) => p.path), ['reason'], 'required holds for engine work too');
});
