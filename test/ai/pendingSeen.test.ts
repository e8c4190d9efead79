/**
 * What a pending action shows its reader, on SQLite and PostgreSQL: the record as the proposer read
 * it when the model proposed (`seen`), cut to the fields the reader may read, and whether the
 * reader may approve or reject it (`canApprove`, `canReject`).
 */
import t from 'tap';
import { databaseCases } from '../harness/databases.ts';
import { bootAi, type AiRuntime, type Person } from './aiFixture.ts';

async function propose(s: AiRuntime, who: Person, calls: Array<{ name: string; args: unknown }>): Promise<string[]> {
  const created = await s.send('POST', '/api/v1/ai/conversations', who, { agent: 'helper' });
  if (created.status !== 201) throw new Error(`conversation: ${created.text}`);
  s.fake.queue.push({ toolCalls: calls }, { content: 'Queued.' });
  const turn = await s.send('POST', `/api/v1/ai/conversations/${created.body.id}/messages`, who, { content: 'go' });
  if (turn.status !== 200) throw new Error(`turn: ${turn.text}`);
  return turn.body.pendingActions as string[];
}

for (const driver of await databaseCases()) {
  await t.test(`${driver.name}: the record as the model saw it, as each reader may read it`, { skip: driver.skip }, async (t) => {
    const s = await bootAi(t, driver.name);
    const note = await s.send('POST', '/api/v1/data/note', s.admin, { title: 'SEEN-1', score: 3, secret: 'SECRET-SEEN' });
    t.equal(note.status, 201);

    const [update] = await propose(s, s.admin, [{ name: 'update_record', args: { object: 'note', id: note.body.id, values: { score: 4 } } }]);
    const asAdmin = await s.send('GET', `/api/v1/ai/pending-actions/${update}`, s.admin);
    t.equal(asAdmin.status, 200);
    t.match(asAdmin.body.seen, { id: note.body.id, title: 'SEEN-1', score: 3, secret: 'SECRET-SEEN', version: note.body.version }, 'the proposer (who reads the secret) sees the record as she read it');
    t.same([asAdmin.body.canApprove, asAdmin.body.canReject], [false, true], 'her own: she may reject it, not approve it');

    const asApprover = await s.send('GET', `/api/v1/ai/pending-actions/${update}`, s.approver);
    t.match(asApprover.body.seen, { id: note.body.id, title: 'SEEN-1', score: 3 }, 'the approver sees the record as it was proposed on');
    t.notOk('secret' in asApprover.body.seen, 'without the field she may not read');
    t.notMatch(asApprover.text, /SECRET-SEEN/, 'anywhere in the answer');
    t.same([asApprover.body.canApprove, asApprover.body.canReject], [true, true], 'and may decide it');
    const listed = await s.send('GET', '/api/v1/ai/pending-actions?status=pending', s.approver);
    t.notMatch(listed.text, /SECRET-SEEN/, 'nor in the list');
    t.same(listed.body.items.map((a: { id: string; canApprove: boolean }) => [a.id, a.canApprove]), [[update, true]]);

    await s.send('PATCH', `/api/v1/data/note/${note.body.id}`, s.admin, { title: 'SEEN-1 changed since' });
    const later = await s.send('GET', `/api/v1/ai/pending-actions/${update}`, s.approver);
    t.equal(later.body.seen.title, 'SEEN-1', 'seen stays what the model saw when the record changes');

    const [create] = await propose(s, s.reader, [{ name: 'create_record', args: { object: 'note', values: { title: 'NEW-1' } } }]);
    const own = await s.send('GET', `/api/v1/ai/pending-actions/${create}`, s.reader);
    t.equal(own.status, 200, 'the proposer with ai:read sees hers');
    t.equal(own.body.seen, null, 'a create saw no record');
    t.same([own.body.status, own.body.canApprove, own.body.canReject], ['pending', false, false], 'pending, and without ai:approve she decides nothing');
    const approved = await s.send('POST', `/api/v1/ai/pending-actions/${create}/approve`, s.approver);
    t.equal(approved.status, 200, approved.text);
    t.same([approved.body.status, approved.body.canApprove, approved.body.canReject], ['applied', false, false], 'decided: nothing more to decide');
    t.same(Object.keys(approved.body.people).sort(), [s.approver.id, s.reader.id].sort(), 'it names its proposer and its approver (people: id -> name)');
    t.ok(Object.values(approved.body.people).every((name) => typeof name === 'string' && name.length > 0), 'by their names');
  });
}
