import t from 'tap';
import { executeQuery } from '../../plugins/data/query/executeQuery.ts';
import { parseQuery } from '../../plugins/data/query/parseQuery.ts';
import { databaseCases } from '../harness/databases.ts';
import { account, contact, registry } from '../harness/fixtures.ts';
import { QUERY_CASES, QUERY_NOW } from './queryCases.ts';
import type { QueryCase } from './queryCases.ts';
import { seed } from './seed.ts';

const cursorKey = 'query-test-key';
const cel = { now: QUERY_NOW };

for (const dbCase of await databaseCases()) {
  t.test(dbCase.name, { skip: dbCase.skip }, async (t) => {
    const db = await dbCase.open(t);
    await seed(db);
    const run = async (c: QueryCase, query: Record<string, unknown>) => {
      const ast = parseQuery(query, c.object === 'account' ? account : contact, registry, { cel });
      return executeQuery(ast, db.knex, { cursorKey, cel });
    };
    for (const c of QUERY_CASES) {
      t.test(c.name, async (t) => {
        if (c.pages) {
          const pages: string[][] = [];
          let cursor: string | null = null;
          do {
            const result = await run(c, cursor ? { ...c.query, cursor } : c.query);
            pages.push(result.items.map((i) => String(i.id)));
            cursor = result.nextCursor;
          } while (cursor && pages.length < 20);
          t.same(pages, c.pages, 'pages');
          return;
        }
        const result = await run(c, c.query);
        if (c.ids) t.same(result.items.map((i) => i.id), c.ids, 'ids in order');
        if (c.rows) t.same(c.pick ? result.items.map(c.pick) : result.items, c.rows, 'rows in order');
        if (c.total !== undefined) t.equal(result.total, c.total, 'total');
      });
    }
  });
}
