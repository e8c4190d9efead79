/**
 * SQLite plans each cursor page of a scoped walk as a typical page: with the statistics the
 * engine keeps (STAT4 samples included) a page near the end of the walk used to be planned for
 * its cursor value, as both indexes of `owner = ? OR status IN (...)` read and every match sorted.
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

t.test('every page of a scoped cursor walk walks the order index', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'osr-cursor-plans-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const db = await openDatabase({ url: `sqlite:${join(dir, 'app.db')}` });
  t.teardown(() => db.close());
  await syncSchema(db.knex, [item]);
  // Rows as the bench seeds them: no owner, statuses in turn, amounts spread evenly.
  const rows = Array.from({ length: 40_000 }, (_, i) => ({
    id: `id-${String(i).padStart(6, '0')}`, version: 1, created_at: '2025-01-01T00:00:00.000Z', updated_at: '2025-01-01T00:00:00.000Z',
    name: `n${i}`, status: STATUSES[i % 4], amount: ((i * 7919) % 40_000) + 0.25,
  }));
  for (let i = 0; i < rows.length; i += 500) await db.knex('item').insert(rows.slice(i, i + 500));
  t.equal((await refreshStatistics(db.knex)).analyzed.length, 1, 'analyzed, as the data plugin does at start');

  const pages: Array<{ sql: string; bindings: unknown[] }> = [];
  db.knex.on('query', (q: { sql: string; bindings: unknown[] }) => {
    if (q.sql.includes('order by')) pages.push(q);
  });
  let cursor: string | null = null;
  let seen = 0;
  do {
    const query = { orderBy: 'amount', limit: 100, ...(cursor ? { cursor } : {}) };
    const result = await executeQuery(parseQuery(query, item, registry), db.knex, { cursorKey: 'k', scopeFilter, total: false });
    seen += result.items.length;
    cursor = result.nextCursor;
  } while (cursor);
  t.equal(seen, 20_000, 'the walk saw every open and active row once');

  const read = directReader(db.knex)!;
  const plans = pages.map((page) => read({ sql: `explain query plan ${page.sql}`, bindings: page.bindings }).map((r) => String(r.detail)).join(' | '));
  const sorted = plans.filter((plan) => /MULTI-INDEX OR|TEMP B-TREE FOR ORDER BY/.test(plan));
  t.equal(sorted.length, 0, `no page reads both indexes and sorts the matches (${sorted.length} of ${plans.length} did): ${sorted[0] ?? ''}`);
  t.ok(plans.every((plan) => plan.includes('USING INDEX ix_item__amount')), 'each walks the amount index');
});
