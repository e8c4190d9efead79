/**
 * A second pair of eyes on what a model proposes: the user in whose conversation an action was
 * proposed does not approve it herself (unless plugins.ai.allowSelfApproval), and write tools do
 * not target the access objects unless the agent declares them, on SQLite and PostgreSQL.
 */
import t from 'tap';
import { databaseCases } from '../harness/databases.ts';
import { bootAi, type AiRuntime, type Person } from './aiFixture.ts';

const APPS = ['test/ai/fixtures/app', 'test/ai/fixtures/access-app'];

async function turn(s: AiRuntime, who: Person, agent: string, calls: Array<{ name: string; args: unknown }>) {
  const created = await s.send('POST', '/api/v1/ai/conversations', who, { agent });
  if (created.status !== 201) throw new Error(`conversation: ${created.text}`);
  s.fake.queue.push({ toolCalls: calls }, { content: 'Done.' });
  const res = await s.send('POST', `/api/v1/ai/conversations/${created.body.id}/messages`, who, { content: 'go' });
  if (res.status !== 200) throw new Error(`turn: ${res.text}`);
  const tools = res.body.messages.filter((m: { role: string }) => m.role === 'tool').map((m: { content: string }) => JSON.parse(m.content));
  return { pending: res.body.pendingActions as string[], tools };
}

async function noteTitles(s: AiRuntime): Promise<string[]> {
  const res = await s.send('POST', '/api/v1/data/note/query', s.admin, { fields: ['title'], orderBy: [{ field: 'title' }] });
  return res.body.items.map((n: { title: string }) => n.title);
}

for (const driver of await databaseCases()) {
  await t.test(`${driver.name}: the proposer does not approve her own action`, { skip: driver.skip }, async (t) => {
    const s = await bootAi(t, driver.name, { config: { apps: APPS } });
    const own = await turn(s, s.approver, 'helper', [{ name: 'create_record', args: { object: 'note', values: { title: 'SELF-1' } } }]);
    t.equal(own.pending.length, 1, 'the approver proposed an action in her own conversation');
    const self = await s.send('POST', `/api/v1/ai/pending-actions/${own.pending[0]}/approve`, s.approver);
    t.equal(self.status, 403, 'approving it herself: 403');
    t.equal(self.body.error.code, 'AI_SELF_APPROVAL', 'AI_SELF_APPROVAL');
    t.match(self.body.error.message, /another holder of ai:approve.*plugins\.ai\.allowSelfApproval/, 'naming the way out');
    t.same(await noteTitles(s), [], 'nothing was written');
    t.match((await s.send('GET', `/api/v1/ai/pending-actions/${own.pending[0]}`, s.approver)).body, { status: 'pending' }, 'it stays pending');
    const byAdmin = await turn(s, s.admin, 'helper', [{ name: 'create_record', args: { object: 'note', values: { title: 'ADMIN-1' } } }]);
    const adminSelf = await s.send('POST', `/api/v1/ai/pending-actions/${byAdmin.pending[0]}/approve`, s.admin);
    t.equal(adminSelf.body?.error?.code, 'AI_SELF_APPROVAL', 'an admin neither');
    const other = await s.send('POST', `/api/v1/ai/pending-actions/${own.pending[0]}/approve`, s.admin);
    t.equal(other.status, 200, 'another approver approves it');
    t.match(other.body, { status: 'applied', decidedBy: s.admin.id });
    t.same(await noteTitles(s), ['SELF-1'], 'and it is applied');
    const rejected = await s.send('POST', `/api/v1/ai/pending-actions/${byAdmin.pending[0]}/reject`, s.admin);
    t.equal(rejected.status, 200, 'rejecting one\'s own stays possible');
  });

  await t.test(`${driver.name}: plugins.ai.allowSelfApproval lets a single person approve her own`, { skip: driver.skip }, async (t) => {
    const s = await bootAi(t, driver.name, { ai: { allowSelfApproval: true }, config: { apps: APPS } });
    const own = await turn(s, s.approver, 'helper', [{ name: 'create_record', args: { object: 'note', values: { title: 'SOLO-1' } } }]);
    const self = await s.send('POST', `/api/v1/ai/pending-actions/${own.pending[0]}/approve`, s.approver);
    t.equal(self.status, 200, self.text);
    t.same(await noteTitles(s), ['SOLO-1'], 'applied');
  });

  await t.test(`${driver.name}: write tools target access objects only when the agent declares them`, { skip: driver.skip }, async (t) => {
    const s = await bootAi(t, driver.name, { config: { apps: APPS } });
    const setId = (await s.send('POST', '/api/v1/data/sys_permission_set', s.admin, { name: 'power', permissions: ['users:admin'] })).body.id as string;
    const grantAda = { name: 'create_record', args: { object: 'sys_user_permission_set', values: { user_id: s.ada.id, permission_set: setId } } };
    const undeclared = [
      grantAda,
      { name: 'create_record', args: { object: 'sys_permission_set', values: { name: 'all', permissions: ['ai:approve'] } } },
      { name: 'update_record', args: { object: 'sys_permission_set', id: setId, values: { permissions: ['ai:approve'] } } },
      { name: 'delete_record', args: { object: 'sys_position', id: 'any' } },
    ];
    const refused = await turn(s, s.admin, 'helper', undeclared);
    t.same(refused.pending, [], 'an agent without accessObjects queues nothing on them');
    t.same(refused.tools.map((r: { error?: { code: string } }) => r.error?.code), undeclared.map(() => 'AI_ACCESS_OBJECT_UNDECLARED'), 'each call answers the coded refusal');
    t.match(refused.tools[0].error.message, /Agent 'helper' may not propose to create a record of sys_user_permission_set: it is an access object.*accessObjects/, 'naming the agent, the object and the key');
    t.match(refused.tools[2].error.message, /propose to update a record of sys_permission_set/, 'updates too');
    const queue = await s.send('GET', '/api/v1/ai/pending-actions', s.admin);
    t.same(queue.body.items, [], 'the queue is empty');

    const declared = await turn(s, s.approver, 'grant_helper', [grantAda, { name: 'create_record', args: { object: 'sys_position', values: { name: 'boss' } } }]);
    t.equal(declared.pending.length, 1, 'the agent that declares sys_user_permission_set proposes on it');
    t.equal(declared.tools[1].error.code, 'AI_ACCESS_OBJECT_UNDECLARED', 'and on no other access object');
    const tools = s.fake.requests.filter((r) => r.path === '/v1/chat/completions').at(-2)!.body.tools as Array<{ function: { name: string; parameters: { properties: { object: { enum: string[] } } } } }>;
    t.ok(tools.find((tool) => tool.function.name === 'create_record')!.function.parameters.properties.object.enum.includes('sys_user_permission_set'), 'its write tools name the declared object');
    t.notOk(tools.find((tool) => tool.function.name === 'create_record')!.function.parameters.properties.object.enum.includes('sys_position'), 'and no other access object');
    const approved = await s.send('POST', `/api/v1/ai/pending-actions/${declared.pending[0]}/approve`, s.admin);
    t.equal(approved.status, 200, `applied by another approver: ${approved.text}`);
  });
}
