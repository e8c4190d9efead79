/**
 * Scoped aggregations split by a group key the scope tests (partitionScope.ts): when the split is
 * made, and that the split query returns exactly what the unsplit one does, on both drivers.
 */
import t from 'tap';
import { executeQuery } from '../../plugins/data/query/executeQuery.ts';
import { parseQuery } from '../../plugins/data/query/parseQuery.ts';
import { partitionCount, partitionScope } from '../../plugins/data/query/partitionScope.ts';
import type { Condition, FieldRef, GroupKey, ScopeFilter } from '../../plugins/data/query/types.ts';
import { databaseCases } from '../harness/databases.ts';
import { contact, registry, resolvedObject } from '../harness/fixtures.ts';
import { seed } from './seed.ts';

const ref = (name: string, type: FieldRef['type']): FieldRef => ({ alias: null, object: 'contact', name, column: name, type, seqColumn: null });
const eq = (name: string, type: FieldRef['type'], value: unknown): Condition => ({ kind: 'compare', target: { kind: 'field', ref: ref(name, type) }, op: 'eq', operand: { kind: 'value', value } });
const isIn = (name: string, type: FieldRef['type'], values: unknown[]): Condition => ({ kind: 'in', target: { kind: 'field', ref: ref(name, type) }, values, negate: false });
const or = (...items: Condition[]): Condition => ({ kind: 'or', items });
const and = (...items: Condition[]): Condition => ({ kind: 'and', items });
const key = (name: string, type: FieldRef['type'], granularity: GroupKey['granularity'] = null): GroupKey => ({ key: name, ref: ref(name, type), granularity });

const owner = (id: string) => eq('owner_id', 'text', id);
const priorities = isIn('priority', 'integer', [1, 2]);

t.test('when a scoped aggregation is split', async (t) => {
  const split = partitionScope(or(owner('u1'), priorities), [key('priority', 'integer')], contact);
  t.same(split?.branches, [
    { values: [1, 2], rest: false, scope: null },
    { values: [1, 2], rest: true, scope: or(owner('u1')) },
  ], 'the tested keys are read unrestricted, the rest under the owner test');
  t.equal(split?.key.column, 'priority');

  const account = (id: string) => eq('account', 'lookup', id);
  const three = partitionScope(or(owner('u1'), eq('priority', 'integer', 3), and(eq('priority', 'integer', 1), account('a1'))), [key('name', 'text'), key('priority', 'integer')], contact);
  t.same(three?.branches.map((b) => [b.values, b.rest]), [[[3], false], [[1], false], [[3, 1], true]], 'split on the group key the scope tests, one part per distinct remaining scope');
  t.same(three?.branches.map((b) => b.scope), [null, or(owner('u1'), and(account('a1'))), or(owner('u1'))], 'each part keeps only the tests its keys leave open');
  const merged = partitionScope(or(owner('u1'), isIn('priority', 'integer', [1, 2, 3])), [key('priority', 'integer')], contact);
  t.same(merged?.branches.map((b) => [b.values, b.rest]), [[[1, 2, 3], false], [[1, 2, 3], true]], 'keys with the same remaining scope share a part');
  t.equal(partitionScope(or(owner('u1'), priorities), [key('name', 'text')], contact), null, 'a group key the scope does not test: no split');
  t.equal(partitionScope(or(owner('u1'), eq('birthday', 'date', '2000-01-01')), [key('birthday', 'date', 'month')], contact), null, 'a bucketed key: no split');
  t.equal(partitionScope(or(eq('email', 'email', 'a'), and(priorities, owner('u1'))), [key('priority', 'integer')], contact), null, 'no part would be unrestricted: no split');
  t.equal(partitionScope(or(eq('notes', 'textarea', 'x'), priorities), [key('priority', 'integer')], contact), null, 'the rest could not be found through an index (notes has none): no split');
  t.equal(partitionScope(or(owner('u1'), isIn('priority', 'integer', [1, 2, 3, 4, 5, 6, 7, 8, 9])), [key('priority', 'integer')], contact), null, 'too many tested values: no split');
  t.equal(partitionScope(or(owner('u1'), { kind: 'not', item: priorities }), [key('priority', 'integer')], contact), null, 'a test under NOT is not split on');
  const unowned = resolvedObject('memo', { status: { type: 'select', options: ['a', 'b'] } }, { owner: false });
  t.equal(partitionScope(or(eq('owner_id', 'text', 'u1'), isIn('status', 'select', ['a'])), [{ key: 'status', ref: { ...ref('status', 'select'), object: 'memo' }, granularity: null }], unowned), null, 'without an owner index the owner test is not findable');
});

t.test('when a plain count is split', async (t) => {
  const split = partitionCount(or(owner('u1'), priorities), contact);
  t.equal(split?.key.column, 'priority', 'on the tested column other than the owner');
  t.same(split?.branches, [
    { values: [1, 2], rest: false, scope: null },
    { values: [1, 2], rest: true, scope: or(owner('u1')) },
  ], 'the tested values counted unrestricted, the rest under the owner test');
  t.equal(partitionCount(or(eq('notes', 'textarea', 'x'), priorities), contact), null, 'the rest could not be found through an index: no split');
  t.equal(partitionCount(owner('u1'), contact)?.branches.length ?? 0, 0, 'a scope of one test: nothing to split');
});

/** Same as the scope, but NOT NOT hides its tests from the split: the unsplit reference. */
const unsplit = (scope: Condition): Condition => ({ kind: 'not', item: { kind: 'not', item: scope } });

const AGGREGATIONS = [
  { function: 'count', alias: 'n' },
  { function: 'sum', field: 'score', alias: 'total' },
  { function: 'min', field: 'name', alias: 'first' },
  { function: 'count_distinct', field: 'account', alias: 'accounts' },
  { function: 'array_agg', field: 'name', alias: 'names' },
];

const CASES: Array<{ name: string; scope: Condition; query: Record<string, unknown>; leaks: string }> = [
  { name: 'group by the tested key', scope: or(owner('u2'), priorities), query: { groupBy: ['priority'], aggregations: AGGREGATIONS }, leaks: 'carol smith' },
  { name: 'with a where, having, order and a page', scope: or(owner('u2'), priorities), query: { where: { score: { $gte: 5 } }, groupBy: ['priority'], aggregations: AGGREGATIONS, having: { n: { $gte: 1 } }, orderBy: '-n', limit: 2, offset: 1 }, leaks: '' },
  { name: 'two group keys, the tested one second', scope: or(owner('u1'), isIn('account', 'lookup', ['a1'])), query: { groupBy: ['priority', 'account'], aggregations: AGGREGATIONS }, leaks: 'Grace' },
  { name: 'a tested key with NULL groups', scope: or(owner('u1'), eq('priority', 'integer', 2)), query: { groupBy: ['priority'], aggregations: AGGREGATIONS }, leaks: 'Éva Szabó' },
  { name: 'no group key, totals only (not split)', scope: or(owner('u1'), priorities), query: { aggregations: AGGREGATIONS }, leaks: '' },
];

for (const dbCase of await databaseCases()) {
  t.test(dbCase.name, { skip: dbCase.skip }, async (t) => {
    const db = await dbCase.open(t);
    await seed(db);
    const statements: string[] = [];
    db.knex.on('query', (q: { sql: string }) => statements.push(q.sql));
    const run = async (query: Record<string, unknown>, scope: Condition | null) => {
      statements.length = 0;
      const scopeFilter: ScopeFilter = (object) => (object.name === 'contact' ? scope : null);
      const result = await executeQuery(parseQuery(query, contact, registry), db.knex, { cursorKey: 'k', ...(scope ? { scopeFilter } : {}) });
      return { result, split: statements.some((s) => s.includes(' union all ')) };
    };
    for (const c of CASES) {
      t.test(c.name, async (t) => {
        const reference = await run(c.query, unsplit(c.scope));
        const split = await run(c.query, c.scope);
        t.equal(reference.split, false, 'the reference is one grouped statement');
        t.equal(split.split, c.query.groupBy !== undefined, c.query.groupBy ? 'the scoped query is read in parts' : 'no group key: one statement');
        t.same(split.result.items, reference.result.items, 'the same groups and values');
        t.equal(split.result.total, reference.result.total, 'the same total');
        if (c.leaks) {
          const open = await run(c.query, null);
          t.match(JSON.stringify(open.result.items), c.leaks, 'the unscoped result shows the hidden row');
          t.notMatch(JSON.stringify(split.result.items), c.leaks, 'the split result does not');
        }
      });
    }

    t.test('a plain list counts its total in parts, the same total', async (t) => {
      const cases: Array<[Condition, Record<string, unknown>]> = [
        [or(owner('u2'), priorities), {}],
        [or(owner('u1'), eq('priority', 'integer', 2)), { where: { score: { $gte: 5 } } }],
        [or(owner('u1'), isIn('account', 'lookup', ['a1'])), { orderBy: 'name' }],
      ];
      for (const [scope, extra] of cases) {
        const query = { limit: 2, ...extra };
        const reference = await run(query, unsplit(scope));
        const split = await run(query, scope);
        t.equal(reference.split, false, 'the reference counts in one statement');
        t.equal(split.split, true, 'the scoped total is counted in parts');
        t.equal(split.result.total, reference.result.total, 'the same total');
        t.same(split.result.items, reference.result.items, 'the same page');
      }
    });

    t.test('each part is right on its own: the owner sees all of 1 and 2 and only its own rows of the rest', async (t) => {
      const { result } = await run({ groupBy: ['priority'], aggregations: [{ function: 'count', alias: 'n' }], orderBy: 'priority' }, or(owner('u2'), priorities));
      // u1 owns c01 (1), c02 (2), c03 (3), c04 (1); u2 owns c05 (null), c06 (2), c07 (3), c08 (2).
      t.same(result.items, [{ priority: null, n: 1 }, { priority: 1, n: 2 }, { priority: 2, n: 3 }, { priority: 3, n: 1 }]);
    });
  });
}
