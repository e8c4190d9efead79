/**
 * A create or update answers the record as the caller's own read by id shows it. Where that read
 * filters no rows, the answer is made from the write statement's own `returning` (no read-back
 * statement): it must still leave out the fields the caller may not read, and the formulas made
 * of them, exactly as the read does. Where the read has a row scope, the write reads back.
 */
import t from 'tap';
import type { DataDatabase } from '../../capabilities/dataDatabase.ts';
import type { DataRecord } from '../../capabilities/dataEngine.ts';
import { definePlugin } from '../../kernel/definePlugin.ts';
import { eachBackend } from '../auth/authHarness.ts';
import { buildWorld, type UserKey } from './accessWorld.ts';

t.test('a write answers what the caller reads by id', async (t) => {
  await eachBackend(t, ['write-answers'], async (t, site) => {
    const w = await buildWorld(t, site);
    t.teardown(() => w.rt.close());
    // A member who reads every doc (no row scope) and may write them, without doc.secret.
    const set = await w.as('admin', 'POST', '/api/v1/data/sys_permission_set', { name: 'doc_writer', objects: { doc: { viewAll: true, create: true, edit: true, read: true } } });
    t.equal(set.status, 201, 'a permission set without the secret field');
    const assigned = await w.as('admin', 'POST', '/api/v1/data/sys_user_permission_set', { user_id: w.users.other.id, permission_set: String(set.body.id) });
    t.equal(assigned.status, 201, 'given to the member');

    const database = w.rt.runtime.kernel.service<DataDatabase>('data.database')!;
    const statements: string[] = [];
    await database.withDatabase(site.ids[0]!, async ({ knex }) => {
      knex.on('query', (q: { sql: string }) => statements.push(q.sql));
    });
    // A read by id of a doc selects every column from id and version on (the search index reads id and title only).
    const readsBack = () => statements.some((sql) => /^select "doc"\."id" as "id", "doc"\."version" as "version", .* from "doc" where/i.test(sql.replaceAll('`', '"')));

    for (const user of ['other', 'admin', 'owner'] as UserKey[]) {
      statements.length = 0;
      const created = await w.as(user, 'POST', '/api/v1/data/doc', { title: `BY-${user}`, region: 'US', secret: user === 'admin' ? 'S-admin' : undefined });
      t.equal(created.status, 201, `${user} creates a doc`);
      const createdReadBack = readsBack();
      const read = await w.as(user, 'GET', `/api/v1/data/doc/${String(created.body.id)}`);
      t.same(created.body, read.body, `${user}: the create answers what a read by id shows`);
      statements.length = 0;
      const updated = await w.as(user, 'PATCH', `/api/v1/data/doc/${String(created.body.id)}`, { region: 'EU' });
      t.equal(updated.status, 200, `${user} updates it`);
      const updatedReadBack = readsBack();
      const reread = await w.as(user, 'GET', `/api/v1/data/doc/${String(created.body.id)}`);
      t.same(updated.body, reread.body, `${user}: the update answers what a read by id shows`);
      // The owner's reads carry its row scope: it reads back; the others answer from the write.
      t.same([createdReadBack, updatedReadBack], user === 'owner' ? [true, true] : [false, false], `${user}: ${user === 'owner' ? 'reads its write back' : 'answered from the write statement'}`);
      if (user === 'other') t.same([created.body.secret, created.body.secret_shout, updated.body.secret, updated.body.secret_shout], [undefined, undefined, undefined, undefined], 'no hidden field, nor a formula of it, in either answer');
      if (user === 'admin') t.same([updated.body.secret, updated.body.secret_shout], ['S-admin', 'S-admin!'], 'the admin is answered every field');
    }
  });
});

/** What a batched after-insert hook is given of each doc an import creates: the batch's answer. */
const inserted = new Map<string, DataRecord>();
const insertProbe = definePlugin({
  name: 'insert-probe',
  version: '1.0.0',
  kernel: '^16.0.0',
  register(ctx) {
    ctx.hook('data.afterInsert', (event: { record: DataRecord }) => {
      inserted.set(String(event.record.id), event.record);
    }, { object: 'doc', batched: true });
  },
});

t.test('a batch of creates (an import) answers what the caller reads by id', async (t) => {
  await eachBackend(t, ['batch-answers'], async (t, site) => {
    const w = await buildWorld(t, site, { plugins: [insertProbe] });
    t.teardown(() => w.rt.close());
    const set = await w.as('admin', 'POST', '/api/v1/data/sys_permission_set', { name: 'doc_importer', objects: { doc: { viewAll: true, create: true, edit: true, read: true } } });
    t.equal(set.status, 201, 'a permission set without the secret field');
    t.equal((await w.as('admin', 'POST', '/api/v1/data/sys_user_permission_set', { user_id: w.users.other.id, permission_set: String(set.body.id) })).status, 201, 'given to the member');

    const database = w.rt.runtime.kernel.service<DataDatabase>('data.database')!;
    const statements: string[] = [];
    await database.withDatabase(site.ids[0]!, async ({ knex }) => {
      knex.on('query', (q: { sql: string }) => statements.push(q.sql.replaceAll('`', '"')));
    });
    for (const user of ['other', 'admin', 'owner'] as UserKey[]) {
      statements.length = 0;
      inserted.clear();
      const rows = [1, 2, 3].map((n) => ({ title: `IMPORTED-${user}-${n}`, region: 'US', ...(user === 'admin' ? { secret: `S-${n}` } : {}) }));
      const res = await w.as(user, 'POST', '/api/v1/data/doc/import', { format: 'json', rows });
      t.equal(res.status, 200, `${user} imports three docs`);
      const ids = (res.body.rows as Array<{ id: string }>).map((r) => r.id);
      t.equal(ids.length, 3, 'three created');
      // One multi-row insert for the three; it answers its rows unless the caller's read has a row scope.
      const inserts = statements.filter((sql) => /^insert into "doc"/i.test(sql));
      t.equal(inserts.length, 1, `${user}: one insert for the batch`);
      // The read-back selects every column from id and version on (the search index reads id and title only).
      const readBack = statements.some((sql) => /^select "doc"\."id" as "id", "doc"\."version" as "version", .* from "doc" where .*"doc"\."id" in/i.test(sql));
      t.same([/ returning /i.test(inserts[0] ?? ''), readBack], user === 'owner' ? [false, true] : [true, false], `${user}: ${user === 'owner' ? 'reads the batch back' : 'answered from the insert'}`);
      for (const id of ids) {
        const read = await w.as(user, 'GET', `/api/v1/data/doc/${id}`);
        t.same(inserted.get(id), read.body, `${user}: the batch's record of ${id} is the read by id`);
      }
      if (user === 'other') t.same([...inserted.values()].map((r) => [r.secret, r.secret_shout]), [[undefined, undefined], [undefined, undefined], [undefined, undefined]], 'no hidden field, nor a formula of it');
      if (user === 'admin') t.same([...inserted.values()].map((r) => r.secret_shout), ['S-1!', 'S-2!', 'S-3!'], 'the admin is answered every field');
    }
  });
});
