/**
 * SQLite plans every cursor page of a walk as a typical page, reading on from the cursor in the
 * sort key's index: with the statistics the engine keeps (STAT4 samples included) a page near the
 * end of a walk used to be planned for its cursor value, as both indexes of `owner = ? OR status
 * IN (...)` read and every match sorted; and a descending page read the index from its top.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { ObjectIndex } from '../../metadata/types.ts';
import { executeQuery } from '../../plugins/data/query/executeQuery.ts';
import { parseQuery } from '../../plugins/data/query/parseQuery.ts';
import type { Condition, FieldRef, ScopeFilter } from '../../plugins/data/query/types.ts';
import { openDatabase } from '../../plugins/data/sql/openDatabase.ts';
import { directReader } from '../../plugins/data/sql/sqliteReader.ts';
import { refreshStatistics } from '../../plugins/data/sql/sqliteStatistics.ts';
import { syncSchema } from '../../plugins/data/sql/syncSchema.ts';
import { resolvedObject } from '../harness/fixtures.ts';

const STATUSES = ['open', 'active', 'closed', 'archived'];
const item = resolvedObject('item', {
  name: { type: 'text' },
  status: { type: 'select', options: STATUSES, indexed: true },
  amount: { type: 'currency', indexed: true },
}, { indexes: [{ fields: ['status', 'amount'] }] as ObjectIndex[] });
const registry = new Map([['item', item]]);

const ref = (name: string, type: FieldRef['type']): FieldRef => ({ alias: null, object: 'item', name, column: name, type, seqColumn: null });
// The bench's row policy: the caller's own rows, or any open or active one (half of them).
const scope: Condition = {
  kind: 'or',
  items: [
    { kind: 'compare', target: { kind: 'field', ref: ref('owner_id', 'text') }, op: 'eq', operand: { kind: 'value', value: 'member' } },
    { kind: 'in', target: { kind: 'field', ref: ref('status', 'select') }, values: ['open', 'active'], negate: false },
  ],
};
const scopeFilter: ScopeFilter = (object) => (object.name === 'item' ? scope : null);

const adminFilter: ScopeFilter = () => null;

t.test('cursor walks read a page from the order\'s index', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'osr-cursor-plans-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const db = await openDatabase({ url: `sqlite:${join(dir, 'app.db')}` });
  t.teardown(() => db.close());
  await syncSchema(db.knex, [item]);
  // Rows as the bench seeds them: no owner, statuses in turn, amounts spread evenly (one in a
  // hundred without one).
  const rows = Array.from({ length: 40_000 }, (_, i) => ({
    id: `id-${String(i).padStart(6, '0')}`, version: 1, created_at: '2025-01-01T00:00:00.000Z', updated_at: '2025-01-01T00:00:00.000Z',
    name: `n${i}`, status: STATUSES[i % 4], amount: i % 100 === 7 ? null : ((i * 7919) % 40_000) + 0.25,
  }));
  for (let i = 0; i < rows.length; i += 500) await db.knex('item').insert(rows.slice(i, i + 500));
  t.equal((await refreshStatistics(db.knex)).analyzed.length, 1, 'analyzed, as the data plugin does at start');
  const read = directReader(db.knex)!;

  /** Walks the whole order; returns the ids in order and the plan of every page after the first. */
  const walk = async (orderBy: string | undefined, filter: ScopeFilter) => {
    const pages: Array<{ sql: string; bindings: unknown[] }> = [];
    let cursor: string | null = null;
    const listener = (q: { sql: string; bindings: unknown[] }) => {
      if (cursor !== null && q.sql.includes('order by')) pages.push(q);
    };
    db.knex.on('query', listener);
    const ids: string[] = [];
    try {
      do {
        const query = { limit: 100, ...(orderBy ? { orderBy } : {}), ...(cursor ? { cursor } : {}) };
        const result = await executeQuery(parseQuery(query, item, registry), db.knex, { cursorKey: 'k', scopeFilter: filter, total: false });
        ids.push(...result.items.map((record) => String(record.id)));
        cursor = result.nextCursor;
      } while (cursor);
    } finally {
      db.knex.off('query', listener);
    }
    // Past a NULL key a descending walk reads the NULLs alone (an equality): the pages checked are the others.
    const plans = pages.filter((page) => !orderBy?.startsWith('-') || page.sql.includes(' union all ')).map((page) => read({ sql: `explain query plan ${page.sql}`, bindings: page.bindings }).map((r) => String(r.detail)).join(' | '));
    return { ids, plans };
  };
  const inOrder = async (orderBy: string | undefined, filter: ScopeFilter): Promise<string[]> => {
    const visible = filter(item) ? rows.filter((r) => r.status === 'open' || r.status === 'active') : rows;
    const desc = orderBy?.startsWith('-') ?? false;
    const key = (r: (typeof rows)[number]) => (orderBy ? r.amount : null);
    return [...visible].sort((a, b) => {
      const x = key(a), y = key(b);
      if (x !== y) {
        if (x === null) return -1 * (desc ? -1 : 1);
        if (y === null) return 1 * (desc ? -1 : 1);
        return (x - y) * (desc ? -1 : 1);
      }
      return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
    }).map((r) => r.id);
  };
  // A page found elsewhere and sorted. A descending page is two parts (p0 the values, p1 the NULLs)
  // merged and sorted as at most two pages; its values part is what is checked.
  const sorted = (plans: string[]) => plans.filter((plan) => /MULTI-INDEX OR|TEMP B-TREE FOR ORDER BY|ANY\(/.test(plan.replace(/ \| SCAN p\d \| USE TEMP B-TREE FOR ORDER BY/g, '').split('| RIGHT |')[0]!));

  for (const [name, orderBy, filter, index] of [
    ['the member by amount', 'amount', scopeFilter, 'ix_item__amount (amount>?)'],
    ['the member in the default order', undefined, scopeFilter, 'sqlite_autoindex_item_1 (id>?)'],
    ['the admin by amount, descending', '-amount', adminFilter, 'ix_item__amount (amount<?)'],
    ['the member by amount, descending', '-amount', scopeFilter, 'ix_item__amount (amount<?)'],
  ] as const) {
    t.test(name, async (t) => {
      const { ids, plans } = await walk(orderBy, filter);
      t.same(ids, await inOrder(orderBy, filter), `every visible row once, in the order (NULL ${orderBy?.startsWith('-') ? 'last' : 'first'})`);
      t.equal(sorted(plans).length, 0, `no page finds its rows elsewhere and sorts them (${sorted(plans).length} of ${plans.length} did): ${sorted(plans)[0] ?? ''}`);
      t.ok(plans.length > 100 && plans.every((plan) => plan.includes(index)), `each page starts in ${index}${plans.some((plan) => !plan.includes(index)) ? `, not ${plans.find((plan) => !plan.includes(index))}` : ''}`);
    });
  }
});
