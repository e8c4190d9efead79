/**
 * Totals on cursor pages. SQLite answers exact totals from its remembered counts; PostgreSQL counts
 * once per walk and carries the total, signed, in the cursor, bound to the count of the caller's
 * scope: a cursor handed to a caller who sees other rows is counted afresh.
 */
import t from 'tap';
import { eachBackend } from '../auth/authHarness.ts';
import { buildWorld } from './accessWorld.ts';

t.test('cursor totals', async (t) => {
  await eachBackend(t, ['access'], async (t, site) => {
    const w = await buildWorld(t, site);
    const pg = site.backend === 'postgres';
    const page = (cursor: string) => `/api/v1/data/doc?orderBy=title&limit=1&cursor=${encodeURIComponent(cursor)}`;

    const first = await w.as('admin', 'GET', '/api/v1/data/doc?orderBy=title&limit=1');
    t.equal(first.status, 200);
    t.equal(first.body.total, 4, 'the first page counts');
    const second = await w.as('admin', 'GET', page(first.body.nextCursor));
    t.equal(second.body.total, 4, 'the next page answers the same total');

    const created = await w.as('admin', 'POST', '/api/v1/data/doc', { title: 'DOC-Z', region: 'US' });
    t.equal(created.status, 201);
    const third = await w.as('admin', 'GET', page(second.body.nextCursor));
    t.equal(third.status, 200);
    t.equal(third.body.total, pg ? 4 : 5, pg ? 'PostgreSQL: the total counted when the walk began' : 'SQLite: the exact total');

    const fresh = await w.as('admin', 'GET', '/api/v1/data/doc?orderBy=title&limit=1');
    t.equal(fresh.body.total, 5, 'a new walk counts again');

    const handed = await w.as('owner', 'GET', page(first.body.nextCursor));
    t.equal(handed.status, 200, 'a cursor of the same query works for another caller');
    t.equal(handed.body.total, 1, "the other caller's own total, never the one carried in the cursor");
    t.notOk(JSON.stringify(handed.body).includes('DOC-B'), 'and only its own rows');
  });
});
