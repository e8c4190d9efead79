/** flows/<name>.json: what the loader accepts, and every way a declaration fails the load naming its file and path. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { loadApps } from '../../metadata/loadApps.ts';

const TASK = {
  name: 'task',
  fields: {
    title: { type: 'text', required: true },
    status: { type: 'select', options: ['open', 'done'] },
    effort: { type: 'integer' },
    due_date: { type: 'date' },
    code: { type: 'text', readonly: true },
  },
};

/** An app holding the task object, a close_task action and these flows (and actions); answers the load's problems. */
async function load(t: Test, flows: Record<string, unknown>, actions: Record<string, unknown> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'osr-flows-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (const sub of ['objects', 'actions', 'flows']) mkdirSync(join(dir, sub));
  writeFileSync(join(dir, 'app.json'), JSON.stringify({ name: 'desk', version: '1.0.0', protocol: '^16.0.0' }));
  writeFileSync(join(dir, 'objects', 'task.json'), JSON.stringify(TASK));
  writeFileSync(join(dir, 'actions', 'close_task.json'), JSON.stringify({ name: 'close_task', object: 'task', input: { note: { type: 'text' } }, run: { type: 'update', set: { status: "'done'" } } }));
  for (const [file, body] of Object.entries(actions)) writeFileSync(join(dir, 'actions', file), JSON.stringify(body));
  for (const [file, body] of Object.entries(flows)) writeFileSync(join(dir, 'flows', file), JSON.stringify(body));
  const result = await loadApps([dir]);
  return {
    result,
    problems: result.errors.map((e) => ({ code: e.code, file: String(e.details.file).slice(dir.length + 1), path: e.details.path, reason: String(e.details.reason) })),
  };
}

const followUp = (extra: Record<string, unknown> = {}) => ({
  name: 'follow_up', type: 'autolaunched',
  input: { task_id: { type: 'text', required: true } },
  steps: [
    { id: 'load', type: 'get', object: 'task', recordId: 'input.task_id' },
    { id: 'check', type: 'branch', when: "steps.load.output.status != 'done'",
      then: [{ id: 'pause', type: 'wait', seconds: 5 },
        { id: 'mark', type: 'update', object: 'task', recordId: 'input.task_id', set: { status: "'done'", effort: 'steps.load.output.effort + 1' } }],
      else: [] },
  ],
  ...extra,
});

t.test('a valid declaration loads with its expressions compiled', async (t) => {
  const { result, problems } = await load(t, { 'follow_up.json': followUp() });
  t.same(problems, []);
  const flow = result.apps[0]!.flows[0]!;
  t.equal(flow.name, 'follow_up');
  t.equal(flow.runAs, 'caller');
  t.equal(flow.type, 'autolaunched');
  t.same(flow.steps.map((s) => s.id), ['load', 'check']);
  t.same(flow.steps[1]!.then!.map((s) => [s.id, s.path]), [['pause', 'steps[1].then[0]'], ['mark', 'steps[1].then[1]']]);
  const when = flow.steps[1]!.when!;
  t.equal(when.type, 'bool');
  t.equal(when.evaluate({ input: { task_id: 'a' }, steps: { load: { status: 'completed', output: { id: 'a', status: 'open', effort: 2 } } } }), true);
  t.equal(when.evaluate({ input: { task_id: 'a' }, steps: { load: { status: 'completed', output: { id: 'a', status: 'done', effort: 2 } } } }), false);
  const effort = flow.steps[1]!.then![1]!.assignments!.find((a) => a.field === 'effort')!;
  t.equal(effort.expression.evaluate({ input: {}, steps: { load: { status: 'completed', output: { effort: 2 } } } }), 3);
});

t.test('record, schedule, api and time-relative flows load with their keys', async (t) => {
  const { result, problems } = await load(t, {
    'on_task.json': { name: 'on_task', type: 'record', runAs: 'system', start: { record: { object: 'task', on: ['insert', 'update'], when: "record.status == 'open'" } }, steps: [{ id: 'n', type: 'notify', to: 'record.owner_id', title: "'New task'", body: 'record.title' }] },
    'nightly.json': { name: 'nightly', type: 'schedule', runAs: 'system', start: { schedule: { cron: '0 3 * * *' } }, steps: [{ id: 'q', type: 'query', object: 'task', where: { status: "'open'" }, limit: 10 }] },
    'orders.json': { name: 'orders', type: 'api', runAs: 'system', hook: { id: 'orders', secretEnv: 'ORDERS_HOOK_SECRET' }, input: { ref: { type: 'text' } }, steps: [{ id: 'c', type: 'create', object: 'task', values: { title: "has(input.ref) ? input.ref : 'order'" } }] },
    'due_soon.json': { name: 'due_soon', type: 'autolaunched', runAs: 'system', start: { timeRelative: { object: 'task', field: 'due_date', offsetDays: [-3, 0] } }, steps: [{ id: 'e', type: 'email', to: "'a@example.com'", subject: "'Due: ' + record.title", text: 'record.title' }] },
  });
  t.same(problems, []);
  const flows = new Map(result.apps[0]!.flows.map((f) => [f.name, f]));
  t.equal(flows.get('on_task')!.recordObject, 'task');
  t.equal(flows.get('on_task')!.when!.evaluate({ input: {}, steps: {}, record: { status: 'open', title: 'x' } }), true);
  t.equal(flows.get('on_task')!.when!.evaluate({ input: {}, steps: {}, record: { status: 'done', title: 'x' } }), false);
  t.same(flows.get('orders')!.hook, { id: 'orders', secretEnv: 'ORDERS_HOOK_SECRET' });
  t.same(flows.get('due_soon')!.start, { timeRelative: { object: 'task', field: 'due_date', offsetDays: [-3, 0] } });
  t.equal(flows.get('due_soon')!.recordObject, 'task');
  t.same(flows.get('nightly')!.start, { schedule: { cron: '0 3 * * *' } });
});

t.test('an action of run.type flow names an autolaunched flow', async (t) => {
  const { result, problems } = await load(t, { 'follow_up.json': followUp() }, { 'follow.json': { name: 'follow', input: { task_id: { type: 'text', required: true } }, run: { type: 'flow', flow: 'follow_up' } } });
  t.same(problems, []);
  t.same(result.apps[0]!.actions.find((a) => a.name === 'follow')!.run, { type: 'flow', flow: 'follow_up' });
});

const step = (s: Record<string, unknown>) => ({ name: 'follow_up', type: 'autolaunched', input: { task_id: { type: 'text' } }, steps: [s] });
const sys = { runAs: 'system' };
const cases: Array<{ name: string; flow: Record<string, unknown>; path: string; reason: RegExp }> = [
  { name: 'unknown top-level key', flow: followUp({ colour: 'red' }), path: 'colour', reason: /./ },
  { name: 'unknown key of a step', flow: step({ id: 'a', type: 'get', object: 'task', recordId: 'input.task_id', colour: 1 }), path: 'steps[0].colour', reason: /./ },
  { name: 'unknown key of a nested step', flow: step({ id: 'b', type: 'branch', when: 'true', then: [{ id: 'w', type: 'wait', seconds: 1, colour: 1 }] }), path: 'steps[0].then[0].colour', reason: /./ },
  { name: 'a key of another step type', flow: step({ id: 'a', type: 'get', object: 'task', recordId: 'input.task_id', seconds: 3 }), path: 'steps[0].seconds', reason: /does not apply to a 'get' step/ },
  { name: 'a missing key of a step', flow: step({ id: 'a', type: 'get', object: 'task' }), path: 'steps[0].recordId', reason: /is required for a 'get' step/ },
  { name: 'unknown step type', flow: step({ id: 'a', type: 'sleep' }), path: 'steps[0].type', reason: /must be one of get, query/ },
  { name: 'unknown key of start', flow: followUp({ start: { cron: '* * * * *' } }), path: 'start.cron', reason: /./ },
  { name: 'unknown key of hook', flow: { ...followUp({ type: 'api', ...sys, hook: { id: 'x', secretEnv: 'X', colour: 1 } }) }, path: 'hook.colour', reason: /./ },
  { name: 'unknown key of timeRelative', flow: followUp({ ...sys, input: undefined, start: { timeRelative: { object: 'task', field: 'due_date', offsetDays: [0], colour: 1 } } }), path: 'start.timeRelative.colour', reason: /./ },
  { name: 'CEL that does not parse', flow: step({ id: 'a', type: 'get', object: 'task', recordId: 'input.task_id +' }), path: 'steps[0].recordId', reason: /in expression/ },
  { name: 'CEL reading an undeclared input', flow: step({ id: 'a', type: 'get', object: 'task', recordId: 'input.taskid' }), path: 'steps[0].recordId', reason: /unknown input 'input.taskid' \(did you mean 'input.task_id'\?\)/ },
  { name: 'CEL reading a later step', flow: followUp({ steps: [{ id: 'a', type: 'get', object: 'task', recordId: 'steps.b.output.id' }, { id: 'b', type: 'get', object: 'task', recordId: 'input.task_id' }] }), path: 'steps[0].recordId', reason: /unknown step 'steps.b'/ },
  { name: 'CEL reading an unknown field of a step output', flow: followUp({ steps: [{ id: 'a', type: 'get', object: 'task', recordId: 'input.task_id' }, { id: 'b', type: 'branch', when: "steps.a.output.stauts == 'x'", then: [{ id: 'w', type: 'wait', seconds: 1 }] }] }), path: 'steps[1].when', reason: /stauts/ },
  { name: 'a branch condition that is not a bool', flow: step({ id: 'b', type: 'branch', when: "'yes'", then: [{ id: 'w', type: 'wait', seconds: 1 }] }), path: 'steps[0].when', reason: /yields string, but bool is expected/ },
  { name: 'an assignment of the wrong type', flow: step({ id: 'a', type: 'update', object: 'task', recordId: 'input.task_id', set: { effort: "'x'" } }), path: 'steps[0].set.effort', reason: /yields string.*integer/ },
  { name: 'a readonly field', flow: step({ id: 'a', type: 'create', object: 'task', values: { code: "'x'" } }), path: 'steps[0].values.code', reason: /readonly/ },
  { name: 'unknown object', flow: step({ id: 'a', type: 'get', object: 'tsak', recordId: 'input.task_id' }), path: 'steps[0].object', reason: /did you mean 'task'/ },
  { name: 'record in an autolaunched flow', flow: step({ id: 'a', type: 'get', object: 'task', recordId: 'record.id' }), path: 'steps[0].recordId', reason: /'record' is not available/ },
  { name: 'now() of a string', flow: step({ id: 'w', type: 'wait', until: "'tomorrow' + 1" }), path: 'steps[0].until', reason: /in expression/ },
  { name: 'a wait with both seconds and until', flow: step({ id: 'w', type: 'wait', seconds: 1, until: 'now()' }), path: 'steps[0].seconds', reason: /exactly one of seconds/ },
  { name: 'a wait too long', flow: step({ id: 'w', type: 'wait', seconds: 99999999 }), path: 'steps[0].seconds', reason: /at most/ },
  { name: 'duplicate step ids', flow: followUp({ steps: [{ id: 'w', type: 'wait', seconds: 1 }, { id: 'w', type: 'wait', seconds: 1 }] }), path: 'steps[1].id', reason: /already used at steps\[0\]/ },
  { name: 'a step id not snake_case', flow: step({ id: 'Wait', type: 'wait', seconds: 1 }), path: 'steps[0].id', reason: /snake_case/ },
  { name: 'unknown action', flow: step({ id: 'a', type: 'action', action: 'close_tsk' }), path: 'steps[0].action', reason: /did you mean 'close_task'/ },
  { name: 'record action without recordId', flow: step({ id: 'a', type: 'action', action: 'close_task' }), path: 'steps[0].recordId', reason: /record action/ },
  { name: 'unknown action input', flow: step({ id: 'a', type: 'action', action: 'close_task', recordId: 'input.task_id', input: { nope: "'x'" } }), path: 'steps[0].input.nope', reason: /unknown input 'nope'/ },
  { name: 'a history step on an object keeping no history', flow: step({ id: 'h', type: 'history', object: 'task', recordId: 'input.task_id' }), path: 'steps[0].object', reason: /keeps no history: set enable.trackHistory/ },
  { name: 'a history step without recordId', flow: step({ id: 'h', type: 'history', object: 'task' }), path: 'steps[0].recordId', reason: /is required for a 'history' step/ },
  { name: 'http GET with a body', flow: step({ id: 'h', type: 'http', url: "'https://x.test'", method: 'GET', body: '{}' }), path: 'steps[0].body', reason: /GET request has no body/ },
  { name: 'http timeout out of bounds', flow: step({ id: 'h', type: 'http', url: "'https://x.test'", timeoutMs: 600000 }), path: 'steps[0].timeoutMs', reason: /at most 60000/ },
  { name: 'a record flow run as the caller', flow: { name: 'follow_up', type: 'record', start: { record: { object: 'task', on: ['insert'] } }, steps: [{ id: 'w', type: 'wait', seconds: 1 }] }, path: 'runAs', reason: /must be 'system' for a record flow/ },
  { name: 'a record flow without start.record', flow: { name: 'follow_up', type: 'record', ...sys, steps: [{ id: 'w', type: 'wait', seconds: 1 }] }, path: 'start.record', reason: /is required for a record flow/ },
  { name: 'a record flow when that is not a bool', flow: { name: 'follow_up', type: 'record', ...sys, start: { record: { object: 'task', on: ['insert'], when: 'record.title' } }, steps: [{ id: 'w', type: 'wait', seconds: 1 }] }, path: 'start.record.when', reason: /bool is expected/ },
  { name: 'a record flow with an unknown event', flow: { name: 'follow_up', type: 'record', ...sys, start: { record: { object: 'task', on: ['upsert'] } }, steps: [{ id: 'w', type: 'wait', seconds: 1 }] }, path: 'start.record.on[0]', reason: /must be one of insert, update, delete/ },
  { name: 'a schedule flow with a bad cron', flow: { name: 'follow_up', type: 'schedule', ...sys, start: { schedule: { cron: '61 * * * *' } }, steps: [{ id: 'w', type: 'wait', seconds: 1 }] }, path: 'start.schedule.cron', reason: /outside 0-59/ },
  { name: 'a schedule flow run as the caller', flow: { name: 'follow_up', type: 'schedule', start: { schedule: { cron: '0 * * * *' } }, steps: [{ id: 'w', type: 'wait', seconds: 1 }] }, path: 'runAs', reason: /must be 'system'/ },
  { name: 'an api flow without hook', flow: followUp({ type: 'api', ...sys }), path: 'hook', reason: /is required for an api flow/ },
  { name: 'an api flow run as the caller', flow: followUp({ type: 'api', hook: { id: 'orders', secretEnv: 'ORDERS_SECRET' } }), path: 'runAs', reason: /must be 'system' for an api flow/ },
  { name: 'a hook on an autolaunched flow', flow: followUp({ hook: { id: 'orders', secretEnv: 'ORDERS_SECRET' } }), path: 'hook', reason: /applies to flows of type 'api' only/ },
  { name: 'a hook id not snake_case', flow: followUp({ type: 'api', ...sys, hook: { id: 'Orders', secretEnv: 'ORDERS_SECRET' } }), path: 'hook.id', reason: /snake_case/ },
  { name: 'a hook secretEnv not an env name', flow: followUp({ type: 'api', ...sys, hook: { id: 'orders', secretEnv: 'orders secret' } }), path: 'hook.secretEnv', reason: /environment variable name/ },
  { name: 'a time-relative start run as the caller', flow: followUp({ input: undefined, steps: [{ id: 'w', type: 'wait', seconds: 1 }], start: { timeRelative: { object: 'task', field: 'due_date', offsetDays: [0] } } }), path: 'runAs', reason: /must be 'system' for a time-relative flow/ },
  { name: 'a time-relative start on a text field', flow: followUp({ ...sys, input: undefined, steps: [{ id: 'w', type: 'wait', seconds: 1 }], start: { timeRelative: { object: 'task', field: 'title', offsetDays: [0] } } }), path: 'start.timeRelative.field', reason: /needs a date or datetime field/ },
  { name: 'a time-relative start with both offsetDays and withinDays', flow: followUp({ ...sys, input: undefined, steps: [{ id: 'w', type: 'wait', seconds: 1 }], start: { timeRelative: { object: 'task', field: 'due_date', offsetDays: [0], withinDays: 3 } } }), path: 'start.timeRelative', reason: /exactly one of offsetDays/ },
  { name: 'a time-relative start with neither', flow: followUp({ ...sys, input: undefined, steps: [{ id: 'w', type: 'wait', seconds: 1 }], start: { timeRelative: { object: 'task', field: 'due_date' } } }), path: 'start.timeRelative', reason: /exactly one of offsetDays/ },
  { name: 'a time-relative start on an api flow', flow: followUp({ type: 'api', ...sys, hook: { id: 'orders', secretEnv: 'ORDERS_SECRET' }, start: { timeRelative: { object: 'task', field: 'due_date', offsetDays: [0] } } }), path: 'start.timeRelative', reason: /does not apply to a flow of type 'api'/ },
  { name: 'a non-integer offset', flow: followUp({ ...sys, input: undefined, steps: [{ id: 'w', type: 'wait', seconds: 1 }], start: { timeRelative: { object: 'task', field: 'due_date', offsetDays: [0.5] } } }), path: 'start.timeRelative.offsetDays[0]', reason: /integer/ },
  { name: 'unknown runAs', flow: followUp({ runAs: 'admin' }), path: 'runAs', reason: /must be one of caller, system/ },
  { name: 'no steps', flow: followUp({ steps: [] }), path: 'steps', reason: /at least one step/ },
  { name: 'file named after another flow', flow: { ...followUp(), name: 'other' }, path: 'name', reason: /file named other.json/ },
];

for (const c of cases) {
  t.test(`refused: ${c.name}`, async (t) => {
    const { result, problems } = await load(t, { 'follow_up.json': c.flow });
    const hit = problems.find((p) => p.path === c.path);
    t.ok(hit, `a problem at ${c.path}; got ${JSON.stringify(problems)}`);
    t.equal(hit?.code, 'METADATA_INVALID');
    t.equal(hit?.file, join('flows', 'follow_up.json'));
    t.match(hit?.reason, c.reason);
    t.same(result.apps[0]?.flows ?? [], [], 'the flow is not loaded');
  });
}
