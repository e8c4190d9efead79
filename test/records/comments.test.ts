import t from 'tap';
import { eachBackend } from '../auth/authHarness.ts';
import { recordsWorld } from './recordsWorld.ts';

/**
 * Comments through /data/:object/:id/comments on both drivers: readable and writable by whoever can
 * read the record (a hidden record is 404), changed by their author or an admin only, refused with
 * FEEDS_DISABLED where enable.feeds is false, mentions notified only to readers, removed with the record.
 */
t.test('comments', async (t) => {
  await eachBackend(t, ['comments'], async (t, site) => {
    const w = await recordsWorld(t, site);
    const deal = await w.must(w.as('m1', 'POST', '/api/v1/data/deal', { title: 'PRIVATE-DEAL' }));
    const url = `/api/v1/data/deal/${deal.id}/comments`;

    const first = await w.must(w.as('m1', 'POST', url, { body: 'FIRST-COMMENT' }));
    t.match(first, { body: 'FIRST-COMMENT', author: w.users.m1.id, mentions: [], version: 1, editedAt: null });
    await w.must(w.as('m1', 'POST', url, { body: 'SECOND-COMMENT' }));
    const listed = await w.must(w.as('m1', 'GET', url), 200);
    t.same(listed.items.map((c: { body: string }) => c.body), ['SECOND-COMMENT', 'FIRST-COMMENT'], 'newest first');
    t.equal(listed.total, 2);
    const paged = await w.must(w.as('m1', 'GET', `${url}?limit=1`), 200);
    t.equal(paged.items.length, 1);
    t.same((await w.must(w.as('m1', 'GET', `${url}?limit=1&cursor=${encodeURIComponent(paged.nextCursor)}`), 200)).items.map((c: { body: string }) => c.body), ['FIRST-COMMENT']);

    // A record the caller cannot read: 404 on every comment route, as for a missing record.
    for (const [method, path, payload] of [['GET', url], ['POST', url, { body: 'x' }], ['PATCH', `${url}/${first.id}`, { body: 'x' }], ['DELETE', `${url}/${first.id}`]] as const) {
      const hidden = await w.as('m2', method, path, payload);
      t.equal(hidden.status, 404, `${method} on a hidden record`);
      t.equal(hidden.body.error.code, 'NOT_FOUND');
      t.notOk(JSON.stringify(hidden.body).includes('COMMENT'), 'no comment text leaks');
    }
    t.equal((await w.as('m1', 'GET', '/api/v1/data/deal/01a00000-0000-7000-8000-000000000000/comments')).status, 404, 'a missing record');
    t.equal((await w.as('m1', 'GET', '/api/v1/data/sys_comment')).status, 404, 'the rows are not served through /data');

    // enable.feeds false: 403 FEEDS_DISABLED.
    const memo = await w.must(w.as('m1', 'POST', '/api/v1/data/memo', { title: 'M' }));
    for (const method of ['GET', 'POST'] as const) {
      const off = await w.as('m1', method, `/api/v1/data/memo/${memo.id}/comments`, method === 'POST' ? { body: 'x' } : undefined);
      t.equal(off.status, 403);
      t.equal(off.body.error.code, 'FEEDS_DISABLED');
      t.equal(off.body.error.message, 'Comments are disabled on object memo (enable.feeds is false).');
    }

    const position = await w.must(w.as('admin', 'POST', '/api/v1/data/sys_position', { name: 'clerk' }));
    const engineOwned = await w.as('admin', 'GET', `/api/v1/data/sys_position/${position.id}/comments`);
    t.equal(engineOwned.status, 403, 'engine-owned objects have no feed');
    t.equal(engineOwned.body.error.code, 'FEEDS_DISABLED');

    // Author or admin: on a record everyone reads, another member may comment but not change others' comments.
    const note = await w.must(w.as('admin', 'POST', '/api/v1/data/note', { title: 'SHARED-NOTE' }));
    const noteUrl = `/api/v1/data/note/${note.id}/comments`;
    const mine = await w.must(w.as('m1', 'POST', noteUrl, { body: 'BY-M1', mentions: [w.users.m2.id] }));
    t.same(mine.mentions, [w.users.m2.id]);
    const byOther = await w.as('m2', 'PATCH', `${noteUrl}/${mine.id}`, { body: 'HIJACK' });
    t.equal(byOther.status, 403);
    t.equal(byOther.body.error.code, 'PERMISSION_DENIED');
    t.equal((await w.as('m2', 'DELETE', `${noteUrl}/${mine.id}`)).status, 403);
    const edited = await w.must(w.as('m1', 'PATCH', `${noteUrl}/${mine.id}`, { body: 'BY-M1-EDITED', expectedVersion: 1 }), 200);
    t.match(edited, { body: 'BY-M1-EDITED', version: 2, editedAt: /^\d{4}-/ });
    t.equal((await w.as('m1', 'PATCH', `${noteUrl}/${mine.id}`, { body: 'STALE', expectedVersion: 1 })).status, 409, 'a stale version');
    t.equal((await w.as('m1', 'PATCH', `${url}/${mine.id}`, { body: 'x' })).status, 404, 'a comment of another record');
    const m2s = await w.must(w.as('m2', 'POST', noteUrl, { body: 'BY-M2' }));
    t.equal((await w.as('admin', 'DELETE', `${noteUrl}/${m2s.id}`)).status, 204, 'an admin deletes any comment');
    t.same((await w.must(w.as('m2', 'GET', noteUrl), 200)).items.map((c: { body: string }) => c.body), ['BY-M1-EDITED']);

    // Mentions: a reader is notified, a member who cannot read the record is not.
    await w.must(w.as('m1', 'POST', url, { body: 'MENTION-ON-PRIVATE', mentions: [w.users.m2.id] }));
    const inbox = await w.must(w.as('m2', 'GET', '/api/v1/notifications'), 200);
    t.same(inbox.items.map((n: { record: { object: string } }) => n.record.object), ['note'], 'notified for the readable note only');
    t.equal(inbox.items[0].body, 'BY-M1');
    t.notOk(JSON.stringify(inbox).includes('MENTION-ON-PRIVATE'));

    const badBody = await w.as('m1', 'POST', url, { body: '' });
    t.equal(badBody.status, 400, 'an empty comment');

    // Deleted for good: the record's comments go with it.
    t.equal((await w.as('admin', 'DELETE', `/api/v1/data/note/${note.id}`)).status, 204);
    const left = await site.query(site.ids[0]!, 'select count(*) as n from sys_comment where record_id = ?', [note.id]);
    t.equal(Number(left[0]!.n), 0, 'no comment row is left');
    const kept = await site.query(site.ids[0]!, 'select count(*) as n from sys_comment where record_id = ?', [deal.id]);
    t.equal(Number(kept[0]!.n), 3, 'other records keep theirs');
  });
});
