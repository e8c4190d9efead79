/** A limit above the object's maxPageSize is capped, not refused, and the answer says so in `limit`. */
import t from 'tap';
import { onEachDriver } from './restFixtures.ts';

const api = '/api/v1/data/page_item';

await onEachDriver(t, 'rest-page-cap', async (t, rest) => {
  for (let rank = 1; rank <= 5; rank++) await rest.create('page_item', { title: `item ${rank}`, rank });

  await t.test('GET list: a limit over the cap answers a page of maxPageSize with limit', async (t) => {
    const res = await rest.send('GET', `${api}?limit=1000&orderBy=rank`);
    t.equal(res.status, 200);
    t.same(res.body.items.map((r: { rank: number }) => r.rank), [1, 2, 3], 'the first maxPageSize records');
    t.equal(res.body.limit, 3, 'the limit applied');
    t.equal(res.body.total, 5);
    const next = await rest.send('GET', `${api}?limit=1000&orderBy=rank&cursor=${encodeURIComponent(res.body.nextCursor as string)}`);
    t.equal(next.status, 200, 'the cursor walk goes on with the same oversized limit');
    t.same(next.body.items.map((r: { rank: number }) => r.rank), [4, 5]);
    t.equal(next.body.nextCursor, null);
    const huge = await rest.send('GET', `${api}?limit=${'9'.repeat(40)}`);
    t.equal(huge.status, 200, 'a limit past the safe integers is capped too');
    t.equal(huge.body.items.length, 3);
  });

  await t.test('POST query: the same, aggregations included', async (t) => {
    const res = await rest.send('POST', `${api}/query`, { limit: 50, orderBy: [{ field: 'rank', order: 'desc' }] });
    t.equal(res.status, 200);
    t.same(res.body.items.map((r: { rank: number }) => r.rank), [5, 4, 3]);
    t.equal(res.body.limit, 3);
    const grouped = await rest.send('POST', `${api}/query`, { groupBy: ['rank'], aggregations: [{ function: 'count', alias: 'n' }], orderBy: [{ field: 'rank', order: 'asc' }], limit: 10 });
    t.equal(grouped.status, 200);
    t.equal(grouped.body.items.length, 3, 'groups capped');
    t.equal(grouped.body.limit, 3);
  });

  await t.test('a limit within the cap is answered as asked, without limit', async (t) => {
    for (const limit of ['2', '3']) {
      const res = await rest.send('GET', `${api}?limit=${limit}`);
      t.equal(res.status, 200);
      t.equal(res.body.items.length, Number(limit));
      t.notOk('limit' in res.body, `limit ${limit}: nothing capped, nothing said`);
    }
  });

  await t.test('a limit that is not a positive integer is still refused', async (t) => {
    for (const limit of ['0', '-4', 'ten', '2.5']) {
      const res = await rest.send('GET', `${api}?limit=${limit}`);
      t.equal(res.status, 400, `limit ${limit}`);
      t.equal(res.body.error.code, 'VALIDATION_ERROR');
    }
    const body = await rest.send('POST', `${api}/query`, { limit: 7.5 });
    t.equal(body.status, 400, 'a fraction in the body');
  });
}, { apps: ['metadata/apps/crm', 'test/rest/fixtures/paged'] });
