/**
 * The record lock skips objects without any approval process; a process created through the API
 * locks at once in the runtime that created it, and within the TTL (or on the events bus message)
 * in another runtime serving the same database. On SQLite and PostgreSQL.
 */
import t from 'tap';
import { sendAs } from '../access/accessWorld.ts';
import { eachBackend } from '../auth/authHarness.ts';
import { LOCKED_OBJECTS_TTL_MS } from '../../plugins/approvals/lockedObjects.ts';
import { buildApprovalsWorld, type ApprovalsWorld } from './approvalsWorld.ts';

/** Objects of the fixture app without a declared process: one per case, so no case sees another's process. */
type Bare = 'ticket' | 'errand';

async function record(w: ApprovalsWorld, object: Bare, title: string): Promise<string> {
  const res = await w.as('owner', 'POST', `/api/v1/data/${object}`, { title });
  if (res.status !== 201) throw new Error(`ticket: ${res.status} ${JSON.stringify(res.body)}`);
  return String(res.body.id);
}

async function lockOn(w: ApprovalsWorld, name: string, object: Bare, recordId: string): Promise<string> {
  const created = await w.as('admin', 'POST', '/api/v1/approvals/processes', { name, object, steps: [{ name: 'check', approvers: { users: [w.users.a1.id] } }] });
  if (created.status !== 201) throw new Error(`process ${name}: ${created.status} ${JSON.stringify(created.body)}`);
  const submitted = await w.as('owner', 'POST', '/api/v1/approvals/requests', { process: name, recordId });
  if (submitted.status !== 201) throw new Error(`submit ${name}: ${submitted.status} ${JSON.stringify(submitted.body)}`);
  return String(submitted.body.id);
}

t.test('locked objects', async (t) => {
  await eachBackend(t, ['approvals'], async (t, site) => {
    const w = await buildApprovalsWorld(t, site);

    await t.test('a process created here locks its records here at once', async (t) => {
      const id = await record(w, 'ticket', 'first');
      const first = await w.as('owner', 'PATCH', `/api/v1/data/ticket/${id}`, { title: 'before any process' });
      t.equal(first.status, 200, JSON.stringify(first.body));
      const requestId = await lockOn(w, 'ticket_here', 'ticket', id);
      const edit = await w.as('owner', 'PATCH', `/api/v1/data/ticket/${id}`, { title: 'while pending' });
      t.equal(edit.status, 409);
      t.equal(edit.body.error.code, 'RECORD_LOCKED');
      t.equal(edit.body.error.details.requestId, requestId);
      t.equal((await w.as('admin', 'DELETE', `/api/v1/data/ticket/${id}`)).status, 409, 'a delete is refused too (even an admin)');
      t.equal((await w.as('a1', 'PATCH', `/api/v1/data/ticket/${id}`, { title: 'by the approver' })).status, 200, "the step's approver may edit");
    });

    await t.test('a process created in another runtime locks records here within the TTL', async (t) => {
      const other = await site.boot({ config: { apps: ['test/approvals/fixtures/app'] } });
      const asOther = (method: string, url: string, payload?: unknown) => sendAs(other, w.users.owner.token, method, url, payload);
      const id = await record(w, 'errand', 'second');
      // The other runtime has looked at the processes before this one creates one.
      t.equal((await asOther('PATCH', `/api/v1/data/errand/${id}`, { title: 'seen elsewhere' })).status, 200);
      const requestId = await lockOn(w, 'errand_there', 'errand', id);
      // Within the TTL (sooner when the events bus delivers): polled for three times the TTL.
      const deadline = Date.now() + 3 * LOCKED_OBJECTS_TTL_MS;
      let edit = await asOther('PATCH', `/api/v1/data/errand/${id}`, { title: 'elsewhere 0' });
      for (let i = 1; edit.status === 200 && Date.now() < deadline; i++) {
        await new Promise((r) => setTimeout(r, 200));
        edit = await asOther('PATCH', `/api/v1/data/errand/${id}`, { title: `elsewhere ${i}` });
      }
      t.equal(edit.status, 409);
      t.equal(edit.body.error.code, 'RECORD_LOCKED');
      t.equal(edit.body.error.details.requestId, requestId);
    });
  });
});
