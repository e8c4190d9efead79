import t from 'tap';
import { eachBackend } from '../auth/authHarness.ts';
import { buildWorld } from './accessWorld.ts';

/**
 * Export and search go through the engine's secured pipeline: a user exports and finds exactly
 * the rows it may read, and never a hidden field's value.
 */
const ALL = ['DOC-A', 'DOC-B', 'DOC-C', 'DOC-E'];
const SECRETS = ['SECRET-A', 'SECRET-B', 'SECRET-C', 'SECRET-E'];

t.test('export and search respect row and field security', async (t) => {
  await eachBackend(t, ['accessio'], async (t, site) => {
    const w = await buildWorld(t, site);
    t.teardown(() => w.rt.close());
    const cases = [
      { user: 'owner' as const, sees: ['DOC-A'], secrets: [] as string[] },
      { user: 'other' as const, sees: ['DOC-B', 'DOC-C', 'DOC-E'], secrets: [] as string[] },
      { user: 'viewAll' as const, sees: ALL, secrets: SECRETS },
    ];
    for (const c of cases) {
      for (const format of ['json', 'csv'] as const) {
        const res = await w.rt.inject({
          method: 'POST', url: '/api/v1/data/doc/export',
          headers: { authorization: `Bearer ${w.users[c.user].token}` }, payload: { format },
        });
        t.equal(res.statusCode, 200, `${c.user} ${format}: 200`);
        for (const title of ALL) t.equal(res.body.includes(title), c.sees.includes(title), `${c.user} ${format}: ${title} ${c.sees.includes(title) ? 'present' : 'absent'}`);
        for (const secret of SECRETS) t.equal(res.body.includes(secret), c.secrets.includes(secret), `${c.user} ${format}: ${secret} ${c.secrets.includes(secret) ? 'present' : 'absent'}`);
        if (!c.secrets.length) t.notOk(res.body.includes('secret'), `${c.user} ${format}: the hidden field is not even named`);
      }
      const found = await w.as(c.user, 'GET', '/api/v1/search?q=doc&object=doc');
      t.equal(found.status, 200, `${c.user} search: 200`);
      const titles = (found.body.items as Array<{ record: { title: string } }>).map((i) => i.record.title).sort();
      t.same(titles, c.sees, `${c.user} search: exactly the readable docs`);
      t.notOk(JSON.stringify(found.body).includes('SECRET') && !c.secrets.length, `${c.user} search: no hidden value`);
    }
  });
});
