/**
 * Cursor pages of a planned list query (cursorPages.ts): compiled once per pattern of NULL sort
 * values, with the cursor's values put in their slots, they are the statement the query compiles
 * to after that cursor, on both drivers.
 */
import t from 'tap';
import { compileQuery } from '../../plugins/data/query/compileQuery.ts';
import type { CursorPosition } from '../../plugins/data/query/cursor.ts';
import { bindCursor, cursorPageFor, cursorPattern } from '../../plugins/data/query/cursorPages.ts';
import type { ListPlan } from '../../plugins/data/query/listPlans.ts';
import { parseQuery } from '../../plugins/data/query/parseQuery.ts';
import type { Condition, FieldRef, ScopeFilter } from '../../plugins/data/query/types.ts';
import { databaseCases } from '../harness/databases.ts';
import { contact, registry } from '../harness/fixtures.ts';

const ref = (name: string, type: FieldRef['type']): FieldRef => ({ alias: null, object: 'contact', name, column: name, type, seqColumn: null });
// A row scope whose own bindings come before and among the cursor's.
const scope: Condition = {
  kind: 'or',
  items: [
    { kind: 'compare', target: { kind: 'field', ref: ref('owner_id', 'text') }, op: 'eq', operand: { kind: 'value', value: 'u1' } },
    { kind: 'in', target: { kind: 'field', ref: ref('priority', 'integer') }, values: [1, 2], negate: false },
  ],
};
const scopeFilter: ScopeFilter = (object) => (object.name === 'contact' ? scope : null);

t.test('the pattern is which sort values are NULL', async (t) => {
  t.equal(cursorPattern({ values: [3, null, 'x'], id: 'a' }), '101');
  t.equal(cursorPattern({ values: [], id: 'a' }), '');
});

const CASES: Array<{ query: Record<string, unknown>; positions: CursorPosition[] }> = [
  { query: { limit: 5 }, positions: [{ values: [], id: 'c05' }] },
  { query: { orderBy: 'score', limit: 5 }, positions: [{ values: [2.5], id: 'c02' }, { values: [null], id: 'c09' }, { values: [7], id: 'c01' }] },
  { query: { orderBy: '-score', limit: 5 }, positions: [{ values: [2.5], id: 'c02' }, { values: [null], id: 'c09' }] },
  { query: { orderBy: '-priority,name', where: { score: { $gte: 1 } }, limit: 3 }, positions: [{ values: [2, 'Bob'], id: 'c03' }, { values: [null, 'Ann'], id: 'c04' }, { values: [1, null], id: 'c07' }, { values: [null, null], id: 'c08' }] },
  { query: { orderBy: 'last_seen,-birthday', limit: 4 }, positions: [{ values: ['2026-01-01T00:00:00.000Z', '2000-05-01'], id: 'c06' }] },
];

for (const dbCase of await databaseCases()) {
  t.test(dbCase.name, { skip: dbCase.skip }, async (t) => {
    const db = await dbCase.open(t);
    for (const { query, positions } of CASES) {
      t.test(JSON.stringify(query), async (t) => {
        const ast = parseQuery(query, contact, registry);
        const plan = { ast } as ListPlan;
        for (const position of positions) {
          const page = cursorPageFor(plan, position, db.knex, scopeFilter);
          t.ok(page, `planned after ${JSON.stringify(position)}`);
          const bound = bindCursor(page!, position);
          const direct = compileQuery(ast, db.knex, { scopeFilter, after: position, fetch: ast.limit + 1 }).page.toSQL().toNative();
          t.equal(bound.sql, direct.sql, 'the same statement as compiled after that cursor');
          t.same(bound.bindings, [...direct.bindings], 'with the same bindings');
          t.equal(cursorPageFor(plan, { ...position, id: 'zz' }, db.knex, scopeFilter), page, 'compiled once per pattern');
        }
        t.equal(plan.cursorPages?.size, new Set(positions.map(cursorPattern)).size, 'one page plan per pattern');
      });
    }
  });
}
