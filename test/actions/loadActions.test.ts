/** actions/<name>.json: what the loader accepts, and every way a declaration fails the load naming its file and path. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { loadApps } from '../../metadata/loadApps.ts';

const TICKET = {
  name: 'ticket',
  fields: {
    subject: { type: 'text', required: true },
    status: { type: 'select', options: ['open', 'closed'] },
    effort: { type: 'integer' },
    code: { type: 'text', readonly: true },
    shout: { type: 'formula', expression: "record.subject + '!'", returns: 'text' },
  },
};

/** An app holding the ticket object and these actions; answers the load's problems as `file path: reason`. */
async function load(t: Test, actions: Record<string, unknown>) {
  const dir = mkdtempSync(join(tmpdir(), 'osr-actions-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'objects'));
  mkdirSync(join(dir, 'actions'));
  writeFileSync(join(dir, 'app.json'), JSON.stringify({ name: 'desk', version: '1.0.0', protocol: '^16.0.0' }));
  writeFileSync(join(dir, 'objects', 'ticket.json'), JSON.stringify(TICKET));
  for (const [file, body] of Object.entries(actions)) writeFileSync(join(dir, 'actions', file), JSON.stringify(body));
  const result = await loadApps([dir]);
  return {
    result,
    problems: result.errors.map((e) => ({ code: e.code, file: String(e.details.file).slice(dir.length + 1), path: e.details.path, reason: String(e.details.reason) })),
  };
}

const close = (extra: Record<string, unknown> = {}, run: Record<string, unknown> = {}) => ({
  name: 'close_ticket', object: 'ticket', permission: 'ticket:close',
  input: { note: { type: 'text', maxLength: 50 } },
  run: { type: 'update', set: { status: "'closed'", effort: 'record.effort + 1' }, ...run },
  ...extra,
});

t.test('a valid declaration loads with its expressions compiled', async (t) => {
  const { result, problems } = await load(t, { 'close_ticket.json': close() });
  t.same(problems, []);
  const action = result.apps[0]!.actions[0]!;
  t.equal(action.name, 'close_ticket');
  t.equal(action.label, 'Close Ticket');
  t.same(action.assignments.map((a) => [a.field, a.expression.type]), [['status', 'string'], ['effort', 'int']]);
  t.same(action.assignments.map((a) => a.expression.evaluate({ input: {}, record: { effort: 2, subject: 'x' } })), ['closed', 3]);
});

const cases: Array<{ name: string; files: Record<string, unknown>; path: string; reason: RegExp }> = [
  { name: 'unknown top-level key', files: { 'close_ticket.json': close({ colour: 'red' }) }, path: 'colour', reason: /./ },
  { name: 'unknown key of an input field', files: { 'close_ticket.json': close({ input: { note: { type: 'text', maxlen: 5 } } }) }, path: 'input.note.maxlen', reason: /./ },
  { name: 'unknown key of run', files: { 'close_ticket.json': close({}, { sett: {} }) }, path: 'run.sett', reason: /./ },
  { name: 'CEL that does not parse', files: { 'close_ticket.json': close({}, { set: { status: "'closed' +" } }) }, path: 'run.set.status', reason: /in expression/ },
  { name: 'CEL reading an undeclared input', files: { 'close_ticket.json': close({}, { set: { status: 'input.colour' } }) }, path: 'run.set.status', reason: /unknown input 'input.colour'; inputs: note/ },
  { name: 'CEL with a misspelt input', files: { 'close_ticket.json': close({}, { set: { status: 'input.nte' } }) }, path: 'run.set.status', reason: /unknown input 'input.nte' \(did you mean 'input.note'\?\)/ },
  { name: 'CEL of the wrong type for the field', files: { 'close_ticket.json': close({}, { set: { effort: "'many'" } }) }, path: 'run.set.effort', reason: /yields string.*integer/ },
  { name: 'record in an action without object', files: { 'open_ticket.json': { name: 'open_ticket', run: { type: 'create', object: 'ticket', values: { subject: 'record.subject' } } } }, path: 'run.values.subject', reason: /'record' is not available: this action has no object/ },
  { name: 'unknown field in set', files: { 'close_ticket.json': close({}, { set: { statsu: "'closed'" } }) }, path: 'run.set.statsu', reason: /unknown field 'statsu'.*did you mean 'status'/ },
  { name: 'a readonly field in set', files: { 'close_ticket.json': close({}, { set: { code: "'X'" } }) }, path: 'run.set.code', reason: /readonly/ },
  { name: 'a formula field in set', files: { 'close_ticket.json': close({}, { set: { shout: "'X'" } }) }, path: 'run.set.shout', reason: /formula/ },
  { name: 'unknown object', files: { 'close_ticket.json': close({ object: 'tikcet' }) }, path: 'object', reason: /unknown object 'tikcet'.*did you mean 'ticket'/ },
  { name: 'update without object', files: { 'close_ticket.json': close({ object: undefined }) }, path: 'object', reason: /is required for run.type 'update'/ },
  { name: 'a flow action without its flow', files: { 'start_it.json': { name: 'start_it', run: { type: 'flow' } } }, path: 'run.flow', reason: /is required for run.type 'flow'/ },
  { name: 'a flow action naming no declared flow', files: { 'start_it.json': { name: 'start_it', run: { type: 'flow', flow: 'nope' } } }, path: 'run.flow', reason: /unknown flow 'nope'/ },
  { name: 'a flow action on a record', files: { 'close_ticket.json': close({}, { type: 'flow', set: undefined, flow: 'x' }) }, path: 'object', reason: /does not apply to run.type 'flow'/ },
  { name: 'unknown run type', files: { 'close_ticket.json': close({}, { type: 'delete' }) }, path: 'run.type', reason: /must be one of update, create, handler, flow/ },
  { name: 'create of an unknown object', files: { 'open_ticket.json': { name: 'open_ticket', run: { type: 'create', object: 'nope', values: { subject: "'x'" } } } }, path: 'run.object', reason: /unknown object 'nope'/ },
  { name: 'create with set', files: { 'open_ticket.json': { name: 'open_ticket', run: { type: 'create', object: 'ticket', set: { subject: "'x'" }, values: { subject: "'x'" } } } }, path: 'run.set', reason: /does not apply/ },
  { name: 'handler with set', files: { 'ping.json': { name: 'ping', run: { type: 'handler', set: { subject: "'x'" } } } }, path: 'run.set', reason: /does not apply/ },
  { name: 'file named after another action', files: { 'other.json': close() }, path: 'name', reason: /file named close_ticket.json/ },
  { name: 'recordId as an input name', files: { 'close_ticket.json': close({ input: { recordId: { type: 'text' } } }) }, path: 'input.recordId', reason: /recordId/ },
  { name: 'select input without options', files: { 'close_ticket.json': close({ input: { pick: { type: 'select' } } }) }, path: 'input.pick.options', reason: /is required/ },
  { name: 'permission that is not a key', files: { 'close_ticket.json': close({ permission: 'close tickets' }) }, path: 'permission', reason: /resource:verb/ },
];

for (const c of cases) {
  t.test(`refused: ${c.name}`, async (t) => {
    const { result, problems } = await load(t, c.files);
    const hit = problems.find((p) => p.path === c.path);
    t.ok(hit, `a problem at ${c.path}; got ${JSON.stringify(problems)}`);
    t.equal(hit?.code, 'METADATA_INVALID');
    t.equal(hit?.file, join('actions', Object.keys(c.files)[0]!));
    t.match(hit?.reason, c.reason);
    t.same(result.apps[0]?.actions ?? [], [], 'the action is not loaded');
  });
}

t.test('action names are unique across apps', async (t) => {
  const dirs = ['one', 'two'].map((name) => {
    const dir = mkdtempSync(join(tmpdir(), 'osr-actions-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    mkdirSync(join(dir, 'actions'));
    writeFileSync(join(dir, 'app.json'), JSON.stringify({ name, version: '1.0.0', protocol: '^16.0.0' }));
    writeFileSync(join(dir, 'actions', 'notify.json'), JSON.stringify({ name: 'notify', run: { type: 'handler' } }));
    return dir;
  });
  const { errors, apps } = await loadApps(dirs);
  t.equal(errors.length, 1);
  t.equal(errors[0]!.details.file, join(dirs[1]!, 'actions', 'notify.json'));
  t.match(errors[0]!.details.reason, /action 'notify' is already declared in .*one|already declared/);
  t.same(apps.map((a) => a.actions.map((x) => x.name)), [['notify'], []]);
});
