import t from 'tap';
import { bearer, eachBackend } from '../auth/authHarness.ts';
import { addUser, sendAs } from '../access/accessWorld.ts';
import { recordsWorld, type RecordsWorld, type Who } from './recordsWorld.ts';

/**
 * A record's timeline through /data/:object/:id/activities on both drivers: history, comments, files
 * and approval requests merged newest first and paged by cursor; a hidden record is 404; a field the
 * reader may not see never shows in history items; approval requests only for their submitter,
 * approvers and admins; ACTIVITIES_DISABLED where enable.activities is false and on engine-owned objects.
 */

const BOUNDARY = '----osrActivitiesBoundary';
const pause = () => new Promise((resolve) => setTimeout(resolve, 15));

async function upload(w: RecordsWorld, who: Who, url: string, name: string, text: string) {
  const payload = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: text/plain\r\n\r\n${text}\r\n--${BOUNDARY}--\r\n`);
  const res = await w.rt.inject({ method: 'POST', url, headers: { ...bearer(w.users[who].token), 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }, payload });
  if (res.statusCode !== 201) throw new Error(`upload answered ${res.statusCode}: ${res.body}`);
  return res.json() as { id: string };
}

interface Item { kind: string; at: string; by: string | null; summary: string; ref: Record<string, string>; data: Record<string, unknown> }

t.test('activities', async (t) => {
  await eachBackend(t, ['activities'], async (t, site) => {
    const w = await recordsWorld(t, site, { config: { apps: ['test/records/fixtures/app', 'test/records/fixtures/activities'], plugins: { email: { enabled: false } } } });
    await w.must(w.as('admin', 'POST', '/api/v1/data/sys_permission_set', { name: 'ticket_secrets', fields: { 'ticket.secret': { read: true, edit: true } } }));
    await w.must(w.as('admin', 'POST', '/api/v1/approvals/processes', { name: 'ticket_review', object: 'ticket', steps: [{ name: 'review', approvers: { users: [w.users.m2.id] } }, { name: 'final', approvers: { users: [w.users.admin.id] } }] }));
    const m3 = await addUser(w.rt, w.users.admin.token, 'memberThree');

    // One record with each kind: created and updated (history), a comment, a file, an approval request.
    const ticket = await w.must(w.as('m1', 'POST', '/api/v1/data/ticket', { title: 'FIRST-TITLE' }));
    const url = `/api/v1/data/ticket/${ticket.id}/activities`;
    await pause();
    await w.must(w.as('admin', 'PATCH', `/api/v1/data/ticket/${ticket.id}`, { title: 'SECOND-TITLE', secret: 'TOP-SECRET-VALUE' }), 200);
    await pause();
    const comment = await w.must(w.as('m1', 'POST', `/api/v1/data/ticket/${ticket.id}/comments`, { body: 'HELLO-COMMENT' }));
    await pause();
    const file = await upload(w, 'm1', `/api/v1/data/ticket/${ticket.id}/files`, 'notes.txt', 'FILE-BYTES');
    await pause();
    const request = await w.must(w.as('m1', 'POST', '/api/v1/approvals/requests', { process: 'ticket_review', recordId: ticket.id }));

    const admin = (await w.must(w.as('admin', 'GET', url), 200)) as { items: Item[]; nextCursor: string | null };
    t.same(admin.items.map((i) => i.kind), ['approval', 'file', 'comment', 'history', 'history'], 'every kind, newest first');
    t.equal(admin.nextCursor, null);
    const ats = admin.items.map((i) => Date.parse(i.at));
    t.same(ats, [...ats].sort((a, b) => b - a), 'ordered by time, newest first');
    t.match(admin.items[0], { kind: 'approval', by: w.users.m1.id, ref: { approvalRequestId: request.id }, data: { process: 'ticket_review', status: 'pending', step: 0 } });
    t.match(admin.items[1], { kind: 'file', by: w.users.m1.id, summary: 'Attached notes.txt', ref: { fileId: file.id }, data: { name: 'notes.txt', contentType: 'text/plain', size: 10 } });
    t.same(Object.keys(admin.items[1]!.data).sort(), ['contentType', 'name', 'size'], 'no bytes, hash or storage key');
    t.match(admin.items[2], { kind: 'comment', by: w.users.m1.id, ref: { commentId: comment.id }, data: { body: 'HELLO-COMMENT', mentions: [], editedAt: null } });
    t.match(admin.items[3], { kind: 'history', by: w.users.admin.id, data: { operation: 'update', version: 2, changes: { title: { old: 'FIRST-TITLE', new: 'SECOND-TITLE' }, secret: { old: null, new: 'TOP-SECRET-VALUE' } } } });
    t.match(admin.items[4], { kind: 'history', by: w.users.m1.id, summary: 'Created', data: { operation: 'create', version: 1 } });

    // The submitter sees its request; the hidden field never shows in its history items.
    const m1 = (await w.must(w.as('m1', 'GET', url), 200)) as { items: Item[] };
    t.same(m1.items.map((i) => i.kind), ['approval', 'file', 'comment', 'history', 'history']);
    t.same(m1.items[3]!.data.changes, { title: { old: 'FIRST-TITLE', new: 'SECOND-TITLE' } }, 'secret left out, old and new value alike');
    t.equal(m1.items[3]!.summary, 'Updated: title');
    t.notOk(JSON.stringify(m1).includes('TOP-SECRET'), 'the hidden value appears nowhere');

    // The approver of the request sees it too.
    const m2 = (await w.must(w.as('m2', 'GET', url), 200)) as { items: Item[] };
    t.same(m2.items.map((i) => i.kind), ['approval', 'file', 'comment', 'history', 'history'], 'the approver sees the request');
    t.notOk(JSON.stringify(m2).includes('TOP-SECRET'));
    // Once its step is decided, the approver is no longer on the slate but still sees the request it decided on.
    await w.must(w.as('m2', 'POST', `/api/v1/approvals/requests/${request.id}/approve`, {}), 200);
    const decided = (await w.must(w.as('m2', 'GET', url), 200)) as { items: Item[] };
    t.match(decided.items[0], { kind: 'approval', ref: { approvalRequestId: request.id }, data: { status: 'pending', step: 1 } }, 'a past approver sees it');

    // A reader who is neither submitter, approver nor admin: no approval item, no hidden value.
    const outsider = await sendAs(w.rt, m3.token, 'GET', url);
    t.equal(outsider.status, 200);
    t.same(outsider.body.items.map((i: Item) => i.kind), ['file', 'comment', 'history', 'history'], 'no approval item for an outsider');
    t.notOk(JSON.stringify(outsider.body).includes(request.id), 'not even the request id');
    t.notOk(JSON.stringify(outsider.body).includes('TOP-SECRET'));

    // Paging: limit and an opaque cursor walk the same timeline.
    const whole = ((await w.must(w.as('admin', 'GET', url), 200)) as { items: Item[] }).items;
    const walked: Item[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = (await w.must(w.as('admin', 'GET', `${url}?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`), 200)) as { items: Item[]; nextCursor: string | null };
      t.ok(page.items.length <= 2);
      walked.push(...page.items);
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor && pages < 10);
    t.equal(pages, 3);
    t.same(walked, whole, 'the pages join into the whole timeline');
    const first = (await w.must(w.as('admin', 'GET', `${url}?limit=2`), 200)) as { nextCursor: string };
    const bad = await w.as('admin', 'GET', `${url}?cursor=not-a-cursor`);
    t.equal(bad.status, 400);
    t.equal(bad.body.error.code, 'BAD_CURSOR');
    const other = await w.must(w.as('m1', 'POST', '/api/v1/data/ticket', { title: 'OTHER' }));
    const foreign = await w.as('admin', 'GET', `/api/v1/data/ticket/${other.id}/activities?cursor=${encodeURIComponent(first.nextCursor)}`);
    t.equal(foreign.status, 400, 'a cursor of another record is refused');
    t.equal(foreign.body.error.code, 'BAD_CURSOR');
    t.equal((await w.as('admin', 'GET', `${url}?limit=201`)).status, 400, 'limit at most 200');
    t.same((await w.must(w.as('admin', 'GET', `${url}?limit=200`), 200)).items, whole, 'the largest page');

    // A record the caller cannot read: 404, exactly as a missing one; nothing leaks.
    const deal = await w.must(w.as('m1', 'POST', '/api/v1/data/deal', { title: 'PRIVATE-DEAL' }));
    await w.must(w.as('m1', 'POST', `/api/v1/data/deal/${deal.id}/comments`, { body: 'DEAL-COMMENT' }));
    t.same((await w.must(w.as('m1', 'GET', `/api/v1/data/deal/${deal.id}/activities`), 200)).items.map((i: Item) => i.kind), ['comment'], 'the owner reads it');
    const hidden = await w.as('m2', 'GET', `/api/v1/data/deal/${deal.id}/activities`);
    t.equal(hidden.status, 404);
    t.equal(hidden.body.error.code, 'NOT_FOUND');
    t.notOk(JSON.stringify(hidden.body).includes('DEAL-COMMENT'));
    const missing = await w.as('m2', 'GET', '/api/v1/data/deal/01a00000-0000-7000-8000-000000000000/activities');
    t.equal(missing.status, 404);
    t.same(missing.body.error.code, hidden.body.error.code);

    // enable.activities false and engine-owned objects: 403 ACTIVITIES_DISABLED; apiMethods without get: 405.
    const quiet = await w.must(w.as('m1', 'POST', '/api/v1/data/quiet', { title: 'Q' }));
    const off = await w.as('m1', 'GET', `/api/v1/data/quiet/${quiet.id}/activities`);
    t.equal(off.status, 403);
    t.equal(off.body.error.code, 'ACTIVITIES_DISABLED');
    t.match(off.body.error.message, /enable\.activities/);
    const position = await w.must(w.as('admin', 'POST', '/api/v1/data/sys_position', { name: 'clerk' }));
    const engineOwned = await w.as('admin', 'GET', `/api/v1/data/sys_position/${position.id}/activities`);
    t.equal(engineOwned.status, 403);
    t.equal(engineOwned.body.error.code, 'ACTIVITIES_DISABLED');
    const narrow = await w.must(w.as('m1', 'POST', '/api/v1/data/narrow', { title: 'N' }));
    const notServed = await w.as('m1', 'GET', `/api/v1/data/narrow/${narrow.id}/activities`);
    t.equal(notServed.status, 405);
    t.equal(notServed.body.error.code, 'METHOD_NOT_ALLOWED');

    // The OpenAPI document lists the route only where the timeline is on.
    const doc = (await w.rt.inject({ url: '/api/v1/openapi.json', headers: bearer(w.users.admin.token) })).json() as { paths: Record<string, unknown> };
    t.ok(doc.paths['/data/ticket/{id}/activities'], 'on ticket');
    t.notOk(doc.paths['/data/quiet/{id}/activities'], 'not on quiet');
  });
});
