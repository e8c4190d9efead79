/**
 * An agent's `permission` (docs/ai.md, Agents): only holders of the key (and admins, who hold every
 * key) start a conversation with it or add to one; a caller who loses the key mid-conversation is
 * refused at the next turn, before the model is asked; agents without the key stay open to every
 * holder of ai:chat. The check is the same on every driver: SQLite alone.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { bootAi } from './aiFixture.ts';

t.test('an agent that declares a permission talks only to holders of it', async (t) => {
  const app = mkdtempSync(join(tmpdir(), 'osr-agent-permission-'));
  t.teardown(() => rmSync(app, { recursive: true, force: true }));
  cpSync('test/ai/fixtures/app', app, { recursive: true });
  writeFileSync(join(app, 'agents', 'payroll.json'), JSON.stringify({ name: 'payroll', model: 'fake/m1', permission: 'payroll:assist', instructions: 'Payroll questions. PAYROLL-MARKER', tools: ['query_data'] }));
  const s = await bootAi(t, 'sqlite', { config: { apps: [app] } });
  const start = (who: typeof s.ada, agent: string) => s.send('POST', '/api/v1/ai/conversations', who, { agent });
  const asked = () => s.fake.requests.filter((r) => r.path === '/v1/chat/completions' && JSON.stringify(r.body).includes('PAYROLL-MARKER')).length;

  const refused = await start(s.ada, 'payroll');
  t.equal(refused.status, 403, 'ai:chat alone does not start a conversation with it');
  t.same([refused.body.error.code, refused.body.error.details.permission, refused.body.error.details.agent], ['PERMISSION_DENIED', 'payroll:assist', 'payroll'], 'naming the key and the agent');
  t.equal((await start(s.ada, 'helper')).status, 201, 'an agent without the key stays open to ai:chat');
  const byAdmin = await start(s.admin, 'payroll');
  t.equal(byAdmin.status, 201, 'admins hold every key');

  // Given the key, ada talks to it.
  const set = await s.send('POST', '/api/v1/data/sys_permission_set', s.admin, { name: 'payroll_assistants', permissions: ['payroll:assist'] });
  t.equal(set.status, 201, set.text);
  const grant = await s.send('POST', '/api/v1/data/sys_user_permission_set', s.admin, { user_id: s.ada.id, permission_set: set.body.id });
  t.equal(grant.status, 201, grant.text);
  const started = await start(s.ada, 'payroll');
  t.equal(started.status, 201, `with the key: ${started.text}`);
  const id = started.body.id as string;
  s.fake.queue.push({ content: 'Paid on the 25th.' });
  const turn = await s.send('POST', `/api/v1/ai/conversations/${id}/messages`, s.ada, { content: 'When is payday?' });
  t.equal(turn.status, 200, turn.text);
  t.equal(asked(), 1, 'the model was asked with the agent instructions');

  // The key taken away: the conversation is ada's still, but the agent no longer answers her.
  const removed = await s.send('DELETE', `/api/v1/data/sys_user_permission_set/${grant.body.id}`, s.admin);
  t.equal(removed.status, 204, removed.text);
  const after = await s.send('POST', `/api/v1/ai/conversations/${id}/messages`, s.ada, { content: 'And next month?' });
  t.same([after.status, after.body.error?.code, after.body.error?.details?.permission], [403, 'PERMISSION_DENIED', 'payroll:assist'], 'refused at the next turn');
  t.equal(asked(), 1, 'before the model is asked');
  const history = await s.send('GET', `/api/v1/ai/conversations/${id}`, s.ada);
  t.same(history.body.messages.map((m: { content: string | null }) => m.content), ['When is payday?', 'Paid on the 25th.'], 'her history stays hers to read, the refused turn not in it');

  const meta = await s.send('GET', '/api/v1/meta/agent/payroll', s.ada);
  t.equal(meta.body.permission, 'payroll:assist', '/meta/agent shows the key, so a client can tell who may use the agent');
});
