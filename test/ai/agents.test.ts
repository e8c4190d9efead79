/** Agents in conversations: tools run as the caller (RLS, FLS), writes queue pending actions, on SQLite and PostgreSQL. */
import t from 'tap';
import { databaseCases } from '../harness/databases.ts';
import type { DataEngine } from '../../capabilities/dataEngine.ts';
import { bootAi, type AiRuntime, type Person } from './aiFixture.ts';

/** The notes of the world: ada's and bob's, each with a secret only admins read. */
async function notes(s: AiRuntime) {
  const make = async (who: Person, title: string) => {
    const res = await s.send('POST', '/api/v1/data/note', who, { title, score: 1 });
    if (res.status !== 201) throw new Error(`note ${title}: ${res.text}`);
    const patched = await s.send('PATCH', `/api/v1/data/note/${res.body.id}`, s.admin, { secret: `SECRET-${title}` });
    if (patched.status !== 200) throw new Error(`secret ${title}: ${patched.text}`);
    return patched.body as { id: string; version: number };
  };
  return { ada1: await make(s.ada, 'ADA-1'), bob1: await make(s.bob, 'BOB-1') };
}

async function conversation(s: AiRuntime, who: Person, agent = 'helper') {
  const res = await s.send('POST', '/api/v1/ai/conversations', who, { agent, title: 'Notes' });
  if (res.status !== 201) throw new Error(`conversation: ${res.text}`);
  return res.body.id as string;
}

/** Titles of the notes as the admin reads them. */
async function titles(s: AiRuntime): Promise<string[]> {
  const res = await s.send('POST', '/api/v1/data/note/query', s.admin, { fields: ['title'], orderBy: [{ field: 'title' }] });
  return res.body.items.map((n: { title: string }) => n.title);
}

for (const driver of await databaseCases()) {
  await t.test(`${driver.name}: query_data sends the model only what the member may read`, { skip: driver.skip }, async (t) => {
    const s = await bootAi(t, driver.name);
    const { ada1 } = await notes(s);

    const meta = await s.send('GET', '/api/v1/meta/agent', s.ada);
    t.same(meta.body.items.map((a: { name: string; tools: string[] }) => [a.name, a.tools.length]), [['helper', 6]], '/meta/agent lists the agent');
    t.notOk('instructions' in meta.body.items[0], "a member is not shown the agent's instructions (its system prompt)");
    t.notMatch(JSON.stringify((await s.send('GET', '/api/v1/meta/agent/helper?layers=true', s.ada)).body), /INSTRUCTIONS-MARKER/, 'nor in the item and its layers');
    const authored = await s.send('GET', '/api/v1/meta/agent/helper?layers=true', s.admin);
    t.match(authored.body.effective.instructions, /INSTRUCTIONS-MARKER/, 'an admin, who authors agents, is');

    const id = await conversation(s, s.ada);
    s.fake.queue.push({ toolCalls: [{ name: 'query_data', args: { object: 'note', limit: 500 } }] }, { content: 'You have one note.' });
    const turn = await s.send('POST', `/api/v1/ai/conversations/${id}/messages`, s.ada, { content: 'Which notes are there?' });
    t.equal(turn.status, 200, turn.text);
    t.same(turn.body.messages.map((m: { role: string }) => m.role), ['user', 'assistant', 'tool', 'assistant']);
    t.equal(turn.body.messages[3].content, 'You have one note.');
    t.equal(turn.body.messages[1].toolCalls[0].name, 'query_data', 'the tool call assembled from its streamed deltas');

    const [first, second] = s.fake.requests.filter((r) => r.path === '/v1/chat/completions');
    t.equal(first!.body.stream, true);
    t.match(first!.body.messages[0], { role: 'system', content: /INSTRUCTIONS-MARKER/ }, 'the instructions are the system prompt');
    t.same(first!.body.tools.map((tool: { function: { name: string } }) => tool.function.name),
      ['query_data', 'validate_expression', 'create_record', 'update_record', 'delete_record', 'action_close_note'], 'the tools with their schemas');
    const actionTool = first!.body.tools.find((tool: { function: { name: string } }) => tool.function.name === 'action_close_note');
    t.same(actionTool.function.parameters.required, ['recordId', 'reason'], "the action tool's schema comes from its input");
    const toolMessage = second!.body.messages.find((m: { role: string }) => m.role === 'tool');
    const sent = JSON.parse(toolMessage.content);
    t.same(sent.items.map((n: { title: string }) => n.title), ['ADA-1'], "the model received the member's rows only");
    t.equal(sent.items[0].id, ada1.id);
    t.notOk('secret' in sent.items[0], 'no FLS-hidden field');
    t.notMatch(JSON.stringify(second!.body), /SECRET-|BOB-1/, 'nothing hidden anywhere in what the provider received');

    // The same conversation by another user, or an admin: 404 on every route.
    for (const who of [s.bob, s.admin]) {
      t.equal((await s.send('GET', `/api/v1/ai/conversations/${id}`, who)).status, 404, `${who.email} GET`);
      t.equal((await s.send('POST', `/api/v1/ai/conversations/${id}/messages`, who, { content: 'x' })).status, 404, `${who.email} POST message`);
      t.equal((await s.send('DELETE', `/api/v1/ai/conversations/${id}`, who)).status, 404, `${who.email} DELETE`);
    }
    const read = await s.send('GET', `/api/v1/ai/conversations/${id}`, s.ada);
    t.equal(read.body.messages.length, 4, 'the owner reads the stored turn');
    t.same((await s.send('GET', '/api/v1/ai/conversations', s.bob)).body.items, [], "bob lists none of ada's");
    t.equal((await s.send('GET', '/api/v1/ai/conversations', s.ada)).body.total, 1);

    // Through /data: owner-private and read-only.
    t.equal((await s.send('GET', '/api/v1/data/sys_ai_message', s.ada)).body.items.length, 4);
    t.equal((await s.send('GET', '/api/v1/data/sys_ai_message', s.bob)).body.items.length, 0);
    t.equal((await s.send('GET', '/api/v1/data/sys_ai_conversation', s.admin)).body.items.length, 0, 'admins included');
    const write = await s.send('POST', '/api/v1/data/sys_ai_conversation', s.admin, { title: 'x' });
    t.equal(write.status, 403);
    t.equal(write.body.error.code, 'SYSTEM_OBJECT_READ_ONLY');

    t.equal((await s.send('DELETE', `/api/v1/ai/conversations/${id}`, s.ada)).status, 204);
    t.equal((await s.send('GET', `/api/v1/ai/conversations/${id}`, s.ada)).status, 404);
    t.equal((await s.send('GET', '/api/v1/data/sys_ai_message', s.ada)).body.items.length, 0, 'its messages are gone');
  });

  await t.test(`${driver.name}: validate_expression, bad tool calls and the step limit`, { skip: driver.skip }, async (t) => {
    const s = await bootAi(t, driver.name, { ai: { maxSteps: 2 } });
    const id = await conversation(s, s.ada);
    s.fake.queue.push(
      { toolCalls: [{ name: 'validate_expression', args: { object: 'note', expression: 'record.score + 1', returns: 'number' } }, { name: 'validate_expression', args: { object: 'note', expression: 'record.nope > 1' } }] },
      { toolCalls: [{ name: 'drop_tables', args: {} }, { name: 'query_data', args: { object: 'note', where: { nope: 1 } } }] },
    );
    const turn = await s.send('POST', `/api/v1/ai/conversations/${id}/messages`, s.ada, { content: 'check' });
    t.equal(turn.status, 200, turn.text);
    t.equal(turn.body.stepLimitReached, true, 'the step limit ends the turn');
    const tools = turn.body.messages.filter((m: { role: string }) => m.role === 'tool').map((m: { content: string }) => JSON.parse(m.content));
    t.match(tools[0], { valid: true, errors: [] });
    t.match(tools[1], { valid: false, errors: [/nope/] }, 'the compile error of the loader');
    t.match(tools[2], { error: { code: 'VALIDATION_ERROR', message: /unknown tool 'drop_tables'/ } });
    t.match(tools[3], { error: { code: 'VALIDATION_ERROR' } }, 'a bad query is validated like POST /data/:object/query');
    t.equal(s.fake.requests.filter((r) => r.path === '/v1/chat/completions').length, 2, 'two model calls');
  });

  await t.test(`${driver.name}: write tools queue pending actions; approval applies them once as the approver`, { skip: driver.skip }, async (t) => {
    const s = await bootAi(t, driver.name);
    const { ada1 } = await notes(s);
    const id = await conversation(s, s.ada);
    const propose = async (calls: Array<{ name: string; args: unknown }>) => {
      s.fake.queue.push({ toolCalls: calls }, { content: 'Queued.' });
      const turn = await s.send('POST', `/api/v1/ai/conversations/${id}/messages`, s.ada, { content: 'do it' });
      if (turn.status !== 200) throw new Error(turn.text);
      return turn.body.pendingActions as string[];
    };

    const [createId] = await propose([{ name: 'create_record', args: { object: 'note', values: { title: 'NEW-1' } } }]);
    t.same(await titles(s), ['ADA-1', 'BOB-1'], 'no record was written');
    const toolResult = JSON.parse(s.fake.requests.at(-1)!.body.messages.find((m: { role: string }) => m.role === 'tool').content);
    t.same(toolResult, { pendingActionId: createId, status: 'pending', note: 'Queued for human approval: nothing has changed yet.' });

    const mine = await s.send('GET', '/api/v1/ai/pending-actions', s.ada);
    t.equal(mine.status, 403, 'ai:chat alone does not read the queue');
    t.equal(mine.body.error.details.permission, 'ai:read');
    t.same((await s.send('GET', '/api/v1/ai/pending-actions', s.reader)).body.items, [], "ai:read sees only its own conversations' actions");
    t.equal((await s.send('GET', `/api/v1/ai/pending-actions/${createId}`, s.reader)).status, 404);
    const queue = await s.send('GET', '/api/v1/ai/pending-actions?status=pending', s.approver);
    t.equal(queue.status, 200);
    t.match(queue.body.items, [{ id: createId, status: 'pending', kind: 'create', object: 'note', payload: { values: { title: 'NEW-1' } }, conversationId: id, proposedBy: s.ada.id }]);
    t.match((await s.send('GET', `/api/v1/ai/pending-actions/${createId}`, s.approver)).body, { id: createId, status: 'pending', expiresAt: /^\d{4}-/ });

    const refused = await s.send('POST', `/api/v1/ai/pending-actions/${createId}/approve`, s.reader);
    t.equal(refused.status, 403, 'ai:read cannot approve');
    t.equal(refused.body.error.code, 'PERMISSION_DENIED');
    t.equal(refused.body.error.details.permission, 'ai:approve');
    t.equal((await s.send('POST', `/api/v1/ai/pending-actions/${createId}/reject`, s.reader)).status, 403, 'nor reject');
    t.same(await titles(s), ['ADA-1', 'BOB-1'], 'still nothing written');

    const approved = await s.send('POST', `/api/v1/ai/pending-actions/${createId}/approve`, s.approver);
    t.equal(approved.status, 200, approved.text);
    t.match(approved.body, { status: 'applied', decidedBy: s.approver.id, result: { recordId: /./ } });
    const created = await s.send('GET', `/api/v1/data/note/${approved.body.result.recordId}`, s.approver);
    t.match(created.body, { title: 'NEW-1', created_by: s.approver.id, owner_id: s.approver.id }, 'written as the approving user');
    const again = await s.send('POST', `/api/v1/ai/pending-actions/${createId}/approve`, s.approver);
    t.equal(again.status, 409);
    t.equal(again.body.error.code, 'AI_ACTION_DECIDED');
    t.same(await titles(s), ['ADA-1', 'BOB-1', 'NEW-1'], 'created once');
    const audit = await s.rt.runtime.kernel.service<DataEngine>('data.engine')!.query('sys_audit_event', { where: { action: 'ai.pending_action_decided' } }, { environmentId: s.environmentId, principal: null, system: true });
    t.match(audit.items, [{ actor_id: s.approver.id, target_type: 'ai_pending_action', target_id: createId, after: { decision: 'approve', status: 'applied', kind: 'create', object: 'note', proposedBy: s.ada.id } }], 'the decision is in the audit trail, once');
    t.notOk(JSON.stringify(audit.items).includes('NEW-1'), 'without the payload');

    // Reject discards.
    const [rejectId] = await propose([{ name: 'create_record', args: { object: 'note', values: { title: 'NEVER' } } }]);
    const rejected = await s.send('POST', `/api/v1/ai/pending-actions/${rejectId}/reject`, s.approver);
    t.match(rejected.body, { status: 'rejected', decidedBy: s.approver.id });
    t.equal((await s.send('POST', `/api/v1/ai/pending-actions/${rejectId}/approve`, s.approver)).status, 409, 'a rejected action never applies');
    t.notOk((await titles(s)).includes('NEVER'));

    // Stale: the record changed after the model read it.
    const [updateId] = await propose([{ name: 'update_record', args: { object: 'note', id: ada1.id, values: { score: 42 } } }]);
    t.equal((await s.send('GET', `/api/v1/ai/pending-actions/${updateId}`, s.admin)).body.expectedVersion, ada1.version, 'the version the model saw');
    t.equal((await s.send('PATCH', `/api/v1/data/note/${ada1.id}`, s.ada, { score: 7 })).status, 200);
    const stale = await s.send('POST', `/api/v1/ai/pending-actions/${updateId}/approve`, s.admin);
    t.equal(stale.status, 409);
    t.equal(stale.body.error.code, 'CONCURRENT_UPDATE');
    t.match((await s.send('GET', `/api/v1/ai/pending-actions/${updateId}`, s.admin)).body, { status: 'failed', error: { code: 'CONCURRENT_UPDATE' } });
    t.equal((await s.send('GET', `/api/v1/data/note/${ada1.id}`, s.admin)).body.score, 7, 'the stale change was not applied');

    // An action: runs through the action registry as the approver (their RLS: the approver cannot see ada's note).
    const [actionId] = await propose([{ name: 'action_close_note', args: { recordId: ada1.id, reason: 'done' } }]);
    t.match((await s.send('GET', `/api/v1/ai/pending-actions/${actionId}`, s.admin)).body, { kind: 'action', action: 'close_note', recordId: ada1.id, payload: { recordId: ada1.id, reason: 'done' } });
    const hidden = await s.send('POST', `/api/v1/ai/pending-actions/${actionId}/approve`, s.approver);
    t.equal(hidden.status, 404, "the approver's row security applies");
    const [actionId2] = await propose([{ name: 'action_close_note', args: { recordId: ada1.id, reason: 'done' } }]);
    const applied = await s.send('POST', `/api/v1/ai/pending-actions/${actionId2}/approve`, s.admin);
    t.equal(applied.status, 200, applied.text);
    t.match((await s.send('GET', `/api/v1/data/note/${ada1.id}`, s.admin)).body, { status: 'closed', title: 'ADA-1 (done)' });

    // Concurrent approvals: one applies, the other is 409.
    const [raceId] = await propose([{ name: 'create_record', args: { object: 'note', values: { title: 'RACE' } } }]);
    const replies = await Promise.all([s.approver, s.admin, s.approver].map((who) => s.send('POST', `/api/v1/ai/pending-actions/${raceId}/approve`, who)));
    t.same(replies.map((r) => r.status).sort(), [200, 409, 409], 'one 200, the others 409');
    t.equal((await titles(s)).filter((x) => x === 'RACE').length, 1, 'applied once');
  });

  await t.test(`${driver.name}: a failed turn stores nothing`, { skip: driver.skip }, async (t) => {
    const s = await bootAi(t, driver.name, { ai: { requestTimeoutMs: 400 } });
    const id = await conversation(s, s.ada);
    const cases = [
      { name: 'provider 500', script: { status: 500 }, status: 502, code: 'AI_PROVIDER_ERROR' },
      { name: 'slow', script: { hang: true as const, ms: 3000 }, status: 504, code: 'AI_TIMEOUT' },
      { name: 'malformed', script: { raw: 'data: {not json\n\n', contentType: 'text/event-stream' }, status: 502, code: 'AI_PROVIDER_ERROR' },
    ];
    for (const c of cases) {
      s.fake.queue.push({ toolCalls: [{ name: 'create_record', args: { object: 'note', values: { title: 'HALF' } } }] }, c.script);
      const turn = await s.send('POST', `/api/v1/ai/conversations/${id}/messages`, s.ada, { content: 'go' });
      t.equal(turn.status, c.status, `${c.name}: ${turn.text}`);
      t.equal(turn.body.error.code, c.code);
      t.same((await s.send('GET', `/api/v1/ai/conversations/${id}`, s.ada)).body.messages, [], `${c.name}: no message stored`);
      t.same((await s.send('GET', '/api/v1/ai/pending-actions', s.admin)).body.items, [], `${c.name}: no pending action left`);
    }
  });
  await t.test(`${driver.name}: ai:read sees its own conversations' actions; past the TTL they expire and never apply`, { skip: driver.skip }, async (t) => {
    const s = await bootAi(t, driver.name, { ai: { pendingActionTtlDays: 0.00002 } });
    const id = await conversation(s, s.reader);
    s.fake.queue.push({ toolCalls: [{ name: 'create_record', args: { object: 'note', values: { title: 'LATE' } } }] }, { content: 'Queued.' });
    const turn = await s.send('POST', `/api/v1/ai/conversations/${id}/messages`, s.reader, { content: 'go' });
    const [pendingId] = turn.body.pendingActions as string[];
    const own = await s.send('GET', '/api/v1/ai/pending-actions', s.reader);
    t.same(own.body.items.map((a: { id: string; status: string }) => [a.id, a.status]), [[pendingId, 'pending']], 'ai:read lists the actions of its own conversations');
    t.equal((await s.send('GET', `/api/v1/ai/pending-actions/${pendingId}`, s.reader)).body.status, 'pending');
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const listed = await s.send('GET', '/api/v1/ai/pending-actions', s.approver);
    t.same(listed.body.items.map((a: { status: string }) => a.status), ['expired'], 'reading the queue marks it expired');
    const late = await s.send('POST', `/api/v1/ai/pending-actions/${pendingId}/approve`, s.approver);
    t.equal(late.status, 409);
    t.equal(late.body.error.code, 'AI_ACTION_DECIDED');
    t.equal(late.body.error.details.status, 'expired');
    t.notOk((await titles(s)).includes('LATE'), 'an expired action never applies');
  });
}

for (const driver of await databaseCases()) {
  await t.test(`${driver.name}: an approval cut off while applying ends failed once it is stale, and never applies later`, { skip: driver.skip }, async (t) => {
    const s = await bootAi(t, driver.name);
    const id = await conversation(s, s.reader);
    s.fake.queue.push({ toolCalls: [{ name: 'create_record', args: { object: 'note', values: { title: 'CUT-OFF' } } }] }, { content: 'Queued.' });
    const turn = await s.send('POST', `/api/v1/ai/conversations/${id}/messages`, s.reader, { content: 'go' });
    const [pendingId] = turn.body.pendingActions as string[];
    // The state a process leaves when it stops between the claim and the apply's commit.
    const engine = s.rt.runtime.kernel.service<DataEngine>('data.engine')!;
    const system = { environmentId: s.environmentId, principal: null, system: true };
    const claimedAt = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();
    await engine.update('sys_ai_pending_action', pendingId!, { status: 'applying', decided_by: s.approver.id, decided_at: claimedAt(2) }, {}, system);
    t.equal((await s.send('GET', `/api/v1/ai/pending-actions/${pendingId}`, s.approver)).body.status, 'applying', 'a recent claim is left alone: its apply may still be running');
    await engine.update('sys_ai_pending_action', pendingId!, { decided_at: claimedAt(11) }, {}, system);
    const listed = await s.send('GET', '/api/v1/ai/pending-actions', s.approver);
    t.same(listed.body.items.map((a: { status: string; error: { code: string } | null }) => [a.status, a.error?.code]), [['failed', 'AI_APPLY_INTERRUPTED']], 'reading the queue settles the stale claim');
    const again = await s.send('POST', `/api/v1/ai/pending-actions/${pendingId}/approve`, s.approver);
    t.equal(again.status, 409);
    t.equal(again.body.error.code, 'AI_ACTION_DECIDED');
    t.notOk((await titles(s)).includes('CUT-OFF'), 'nothing was applied');
  });
}
