import t from 'tap';
import { executeQuery } from '../../plugins/data/query/executeQuery.ts';
import { parseQuery, parseScopeFilter } from '../../plugins/data/query/parseQuery.ts';
import type { Condition, ScopeFilter } from '../../plugins/data/query/types.ts';
import { databaseCases } from '../harness/databases.ts';
import { account, contact, registry } from '../harness/fixtures.ts';
import { seed } from './seed.ts';

/** Row-level security hook: contacts of owner u2 only; accounts outside health only (hides a4). */
const scopes = new Map<string, Condition | null>([
  ['contact', parseScopeFilter({ owner_id: 'u2' }, contact)],
  ['account', parseScopeFilter({ industry: { $ne: 'health' } }, account)],
]);
const scopeFilter: ScopeFilter = (object) => scopes.get(object.name) ?? null;
const join = (type: string) => [{ type, object: 'account', as: 'a', on: 'account = a.id' }];
const pair = (i: Record<string, unknown>) => [i.id, (i.a as { name?: string } | null)?.name ?? null];

const CASES: Array<{ name: string; query: Record<string, unknown>; rows: unknown[]; pick?: (i: Record<string, unknown>) => unknown; total?: number; leaks: unknown }> = [
  { name: 'list', query: {}, pick: (i) => i.id, rows: ['c05', 'c06', 'c07', 'c08'], total: 4, leaks: 'c01' },
  {
    name: 'expand hides a scoped-out target',
    query: { expand: ['account'] },
    pick: (i) => [i.id, (i.account as { name?: string } | null)?.name ?? null],
    rows: [['c05', 'Initech'], ['c06', null], ['c07', 'Globex'], ['c08', null]],
    leaks: 'Umbrella_Corp',
  },
  { name: 'inner join target', query: { joins: join('inner'), fields: ['a.name'] }, pick: pair, rows: [['c05', 'Initech'], ['c07', 'Globex']], total: 2, leaks: 'c01' },
  { name: 'right join keeps no hidden row', query: { joins: join('right'), fields: ['a.name'], orderBy: 'a.name' }, pick: pair, rows: [[null, 'Acme'], ['c07', 'Globex'], ['c05', 'Initech'], [null, 'Zeta']], total: 4, leaks: 'Umbrella_Corp' },
  {
    name: 'full join keeps no hidden row',
    query: { joins: join('full'), fields: ['a.name'], orderBy: 'a.name' },
    pick: pair,
    rows: [['c06', null], ['c08', null], [null, 'Acme'], ['c07', 'Globex'], ['c05', 'Initech'], [null, 'Zeta']],
    total: 6,
    leaks: 'c03',
  },
  { name: 'aggregate', query: { groupBy: ['account'], aggregations: [{ function: 'count', alias: 'n' }] }, rows: [{ account: 'a2', n: 1 }, { account: 'a3', n: 1 }, { account: 'a4', n: 1 }, { account: 'a9', n: 1 }], total: 4, leaks: 'a1' },
];

for (const dbCase of await databaseCases()) {
  t.test(dbCase.name, { skip: dbCase.skip }, async (t) => {
    const db = await dbCase.open(t);
    await seed(db);
    const run = (query: Record<string, unknown>, scoped: boolean) =>
      executeQuery(parseQuery(query, contact, registry), db.knex, { cursorKey: 'k', ...(scoped ? { scopeFilter } : {}) });
    for (const c of CASES) {
      t.test(c.name, async (t) => {
        // The unscoped query shows the row the scope must hide, so this test fails without the guard.
        const open = await run(c.query, false);
        t.match(JSON.stringify(open.items), JSON.stringify(c.leaks), 'visible without the scope');
        const result = await run(c.query, true);
        t.same(c.pick ? result.items.map(c.pick) : result.items, c.rows);
        t.notMatch(JSON.stringify(result.items), JSON.stringify(c.leaks), 'hidden with the scope');
        if (c.total !== undefined) t.equal(result.total, c.total, 'total counts only visible rows');
      });
    }

    t.test('expand is batched: one query per level, not per row', async (t) => {
      const sql: string[] = [];
      const listener = (q: { sql: string }) => sql.push(q.sql);
      db.knex.on('query', listener);
      const result = await run({ expand: ['account.parent'], limit: 8 }, false);
      db.knex.removeListener('query', listener);
      t.equal(result.items.length, 8);
      t.equal(sql.length, 4, 'page, count, accounts, parents');
      t.equal(sql.filter((s) => /from [`"]account[`"] where [`"]id[`"] in \(/.test(s)).length, 2, 'each level reads accounts once with IN (...)');
      const c02 = result.items.find((i) => i.id === 'c02') as { account: { parent: { name: string } } };
      t.equal(c02.account.parent.name, 'Acme');
    });
  });
}
