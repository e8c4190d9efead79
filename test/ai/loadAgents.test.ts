/** agents/<name>.json: what the loader accepts, and how a bad declaration fails the load naming its file and path. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { loadApps } from '../../metadata/loadApps.ts';

async function load(t: Test, agents: Record<string, unknown>) {
  const dir = mkdtempSync(join(tmpdir(), 'osr-agents-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (const sub of ['objects', 'actions', 'agents']) mkdirSync(join(dir, sub));
  writeFileSync(join(dir, 'app.json'), JSON.stringify({ name: 'desk', version: '1.0.0', protocol: '^16.0.0' }));
  writeFileSync(join(dir, 'objects', 'ticket.json'), JSON.stringify({ name: 'ticket', fields: { subject: { type: 'text' }, status: { type: 'select', options: ['open', 'closed'] } } }));
  writeFileSync(join(dir, 'actions', 'close_ticket.json'), JSON.stringify({ name: 'close_ticket', object: 'ticket', run: { type: 'update', set: { status: "'closed'" } } }));
  for (const [file, body] of Object.entries(agents)) writeFileSync(join(dir, 'agents', file), JSON.stringify(body));
  const result = await loadApps([dir]);
  return {
    result,
    problems: result.errors.map((e) => ({ code: e.code, file: String(e.details.file).slice(dir.length + 1), path: e.details.path, reason: String(e.details.reason) })),
  };
}

t.test('a valid agent loads with its defaults', async (t) => {
  const { result, problems } = await load(t, { 'desk_helper.json': { name: 'desk_helper', instructions: 'Help.', tools: ['query_data', 'action_close_ticket'] } });
  t.same(problems, []);
  t.same(result.apps[0]!.agents.map(({ source: _s, ...a }) => a), [{ name: 'desk_helper', label: 'Desk Helper', model: null, permission: null, instructions: 'Help.', tools: ['query_data', 'action_close_ticket'], accessObjects: [], app: 'desk' }]);
});

t.test('permission: a permission key, kept; anything else refused naming the path', async (t) => {
  const { result, problems } = await load(t, {
    'payroll.json': { name: 'payroll', instructions: 'x', permission: 'payroll:assist' },
    'loose.json': { name: 'loose', instructions: 'x', permission: 'Payroll' },
  });
  t.same(result.apps[0]!.agents.map((a) => [a.name, a.permission]), [['payroll', 'payroll:assist']]);
  t.match(problems.filter((p) => p.file === 'agents/loose.json').map((p) => `${p.path}: ${p.reason}`), [/^permission: must be a permission key like support:assist/]);
});

t.test('bad declarations are refused naming file and path', async (t) => {
  const { result, problems } = await load(t, {
    'extra.json': { name: 'extra', instructions: 'x', tools: [], temperature: 1 },
    'tools.json': { name: 'tools', instructions: 'x', tools: ['query_dta', 'action_nope', 'query_data', 'query_data'] },
    'named.json': { name: 'other_name', instructions: 'x' },
    'noinst.json': { name: 'noinst' },
    'model.json': { name: 'model', instructions: 'x', model: 'gpt-4' },
  });
  t.same(result.apps[0]!.agents, [], 'none of them loads');
  const by = (file: string) => problems.filter((p) => p.file === `agents/${file}`).map((p) => `${p.path}: ${p.reason}`);
  t.ok(problems.every((p) => p.code === 'METADATA_INVALID'));
  t.match(by('extra.json'), [/temperature/], 'an unknown key is named');
  t.match(by('tools.json'), [/^tools\.0: unknown tool 'query_dta' \(did you mean 'query_data'\?\)/, /^tools\.1: unknown tool 'action_nope'/, /^tools\.3: tool 'query_data' is listed twice/]);
  t.match(by('named.json'), [/^name: agent 'other_name' must be declared in a file named other_name.json/]);
  t.match(by('noinst.json'), [/^instructions: is required/]);
  t.match(by('model.json'), [/^model: must be <providerId>\/<model>/]);
});

t.test('accessObjects: access objects only, for an agent with a write tool', async (t) => {
  const { result, problems } = await load(t, {
    'grants.json': { name: 'grants', instructions: 'x', tools: ['create_record', 'delete_record'], accessObjects: ['sys_user_permission_set', 'sys_user_position'] },
    'typo.json': { name: 'typo', instructions: 'x', tools: ['create_record'], accessObjects: ['sys_user_permision_set', 'ticket', 'sys_position', 'sys_position'] },
    'reader.json': { name: 'reader', instructions: 'x', tools: ['query_data'], accessObjects: ['sys_position'] },
  });
  const by = (file: string) => problems.filter((p) => p.file === `agents/${file}`).map((p) => `${p.path}: ${p.reason}`);
  t.same(by('grants.json'), [], 'declared access objects load');
  t.same(result.apps[0]!.agents.map((a) => [a.name, a.accessObjects]), [['grants', ['sys_user_permission_set', 'sys_user_position']]], 'and are kept');
  t.match(by('typo.json'), [
    /^accessObjects\.0: 'sys_user_permision_set' is not an access object \(did you mean 'sys_user_permission_set'\?\); access objects are sys_position, /,
    /^accessObjects\.1: 'ticket' is not an access object/,
    /^accessObjects\.3: object 'sys_position' is listed twice/,
  ], 'anything else is refused naming the path');
  t.match(by('reader.json'), [/^accessObjects: lists objects for write tools the agent does not have: add create_record, update_record, delete_record to tools/], 'without a write tool the key would do nothing: refused');
});
