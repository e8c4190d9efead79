import t from 'tap';
import type { ResolvedObject } from '../../metadata/types.ts';
import { createListPlans, listPlanKey, type ListPlan } from '../../plugins/data/query/listPlans.ts';

t.test('listPlanKey: the query text, or null for what may not be planned', async (t) => {
  t.equal(listPlanKey({ limit: '50' }), '{"limit":"50"}');
  t.equal(listPlanKey({ where: '{"status":"open"}', orderBy: '-amount' }), '{"where":"{\\"status\\":\\"open\\"}","orderBy":"-amount"}');
  t.equal(listPlanKey({ limit: 50, cursor: 'abc' }), null, 'a cursor binds its values per page');
  t.equal(listPlanKey({ groupBy: ['status'] }), '{"groupBy":["status"]}', 'aggregations are planned');
  t.equal(listPlanKey({ distinct: true }), '{"distinct":true}', 'and distinct reads');
  t.equal(listPlanKey({ groupBy: ['status'], having: { n: { $gt: { $cel: 'size(user.positions)' } } } }), null, 'unless {$cel} is in them');
  t.equal(listPlanKey({ where: { due: { $lt: { $cel: 'now' } } } }), null, '{$cel} is evaluated when parsed');
  t.equal(listPlanKey({ where: '{"due":{"$lt":{"$cel":"now"}}}' }), null, 'also inside a where given as text');
  t.equal(listPlanKey({ where: 'x'.repeat(5000) }), null, 'a very long query is not kept');
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  t.equal(listPlanKey(cyclic), null, 'a query that is not JSON is not planned');
});

t.test('plans are kept per owner and object, at most `limit` per object, oldest out first', async (t) => {
  const plans = createListPlans(2);
  const object = { name: 'doc' } as unknown as ResolvedObject;
  const other = { name: 'note' } as unknown as ResolvedObject;
  const [alice, bob] = [{}, {}];
  const plan = (n: number) => ({ sortKeyTypes: [], page: { sql: `p${n}`, bindings: [] }, count: { sql: `c${n}`, bindings: [] } }) as unknown as ListPlan;
  plans.set(alice, object, 'a', plan(1));
  t.equal(plans.get(alice, object, 'a')?.page.sql, 'p1');
  t.equal(plans.get(bob, object, 'a'), undefined, "another owner does not get alice's plan");
  t.equal(plans.get(alice, other, 'a'), undefined, 'nor another object');
  plans.set(alice, object, 'b', plan(2));
  plans.set(alice, object, 'c', plan(3));
  t.equal(plans.get(alice, object, 'a'), undefined, 'the oldest went');
  t.same([plans.get(alice, object, 'b')?.page.sql, plans.get(alice, object, 'c')?.page.sql], ['p2', 'p3']);
});
