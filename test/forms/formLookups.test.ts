/**
 * A form without runAs writes in a limited system context, yet its lookups are checked for the
 * caller it writes for: a signed-in member may name only records she may read, an anonymous caller
 * none; a hidden record answers exactly like a random id (no existence oracle), on both drivers.
 */
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { eachBackend } from '../auth/authHarness.ts';
import { formsWorld } from './formsHarness.ts';

/** The answer with the id it names replaced, to compare a hidden record's answer with a random id's. */
const shape = (body: unknown, id: string) => JSON.stringify(body).split(id).join('<id>');

await eachBackend(t, ['formlookups'], async (t, site) => {
  const w = await formsWorld(t, site);
  const hidden = String((await w.as(w.admin.token, 'POST', '/api/v1/data/project', { name: 'Admin only' })).body.id);
  const own = String((await w.as(w.member.token, 'POST', '/api/v1/data/project', { name: 'Member project' })).body.id);
  const random = randomUUID();
  t.equal((await w.as(w.member.token, 'GET', `/api/v1/data/project/${hidden}`)).status, 404, 'the member cannot read the admin\'s private project');
  const answer = (project: string) => ({ subject: 'lookup', email: 'm@example.com', project });

  await t.test('a member form without runAs: only records the member may read', async (t) => {
    const toHidden = await w.as(w.member.token, 'POST', '/api/v1/forms/members-project/submit', answer(hidden));
    t.equal(toHidden.status, 400, 'a hidden record is refused');
    t.equal(toHidden.body.error.code, 'VALIDATION_ERROR', 'VALIDATION_ERROR');
    t.match(toHidden.body.error.details.errors, [{ path: 'project', message: `no project record has id '${hidden}'` }], 'on the lookup, as a missing record');
    const toRandom = await w.as(w.member.token, 'POST', '/api/v1/forms/members-project/submit', answer(random));
    t.equal(toRandom.status, 400, 'a random id: 400');
    t.equal(shape(toHidden.body, hidden), shape(toRandom.body, random), 'a hidden record answers exactly like a random id');
    const toOwn = await w.as(w.member.token, 'POST', '/api/v1/forms/members-project/submit', answer(own));
    t.equal(toOwn.status, 201, 'a record the member reads is accepted');
    t.equal((await w.as(w.admin.token, 'GET', `/api/v1/data/ticket/${toOwn.body.id}`)).body.project, own, 'and stored');
    const byAdmin = await w.as(w.admin.token, 'POST', '/api/v1/forms/members-project/submit', answer(own));
    t.equal(byAdmin.status, 201, 'an admin names any record');
  });

  await t.test('an anonymous form without runAs: an anonymous caller names no record', async (t) => {
    const toHidden = await w.anon('POST', '/api/v1/forms/open-project/submit', answer(hidden), '10.9.0.1');
    t.equal(toHidden.status, 400, 'a hidden record is refused');
    t.match(toHidden.body.error.details.errors, [{ path: 'project', message: `no project record has id '${hidden}'` }], 'as a missing record');
    const toRandom = await w.anon('POST', '/api/v1/forms/open-project/submit', answer(random), '10.9.0.1');
    t.equal(shape(toHidden.body, hidden), shape(toRandom.body, random), 'exactly like a random id');
    const toOwn = await w.anon('POST', '/api/v1/forms/open-project/submit', answer(own), '10.9.0.1');
    t.equal(toOwn.status, 400, 'any record: refused');
    const none = await w.anon('POST', '/api/v1/forms/open-project/submit', { subject: 'no lookup', email: 'a@example.com' }, '10.9.0.1');
    t.equal(none.status, 201, 'without the lookup the form is accepted');
    const signedIn = await w.as(w.member.token, 'POST', '/api/v1/forms/open-project/submit', answer(own));
    t.equal(signedIn.status, 201, 'a signed-in member names a record she may read');
    const signedInHidden = await w.as(w.member.token, 'POST', '/api/v1/forms/open-project/submit', answer(hidden));
    t.equal(signedInHidden.status, 400, 'but not a hidden one');
  });

  await t.test('the hidden record stays its owner\'s to delete', async (t) => {
    const linked = (await w.tickets()).filter((r) => r.project === hidden);
    t.equal(linked.length, 0, 'no submission points at it');
    const deleted = await w.as(w.admin.token, 'DELETE', `/api/v1/data/project/${hidden}`);
    t.equal(deleted.status, 204, 'its owner deletes it');
  });
});
