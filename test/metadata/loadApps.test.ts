/** Loading app directories: every problem is a coded error naming file and path, all reported at once. */
import t from 'tap';
import { loadApps } from '../../metadata/loadApps.ts';
import { appFixture, crmDir, manifest, rows, tsAppDir, writeApp, writeApps } from './helpers.ts';

const account = { name: 'account', fields: { name: { type: 'text', required: true } } };
const task = {
  name: 'task',
  label: 'Task',
  fields: {
    title: { type: 'text', required: true },
    status: { type: 'select', options: ['open', 'done'] },
    account: { type: 'lookup', reference: 'account' },
  },
};

t.test('the issue example loads with defaults resolved', async (t) => {
  const dir = writeApp(t, { 'task.json': task, 'account.json': account });
  const { apps, objects, errors } = await loadApps([dir]);
  t.same(errors, []);
  t.same([...objects.keys()], ['account', 'task']);
  t.same(apps.map((a) => [a.manifest.name, a.objects.map((o) => o.name)]), [['demo', ['account', 'task']]]);
  const resolved = objects.get('task')!;
  t.match(resolved, {
    name: 'task', label: 'Task', pluralLabel: 'Tasks', apiEnabled: true, apiMethods: null, maxPageSize: 200,
    sharingModel: 'private', owner: true, enable: { activities: true, feeds: true, files: false, trackHistory: false, trash: false },
    validationRules: [], indexes: [], nameField: 'title', system: false, app: 'demo', source: `${dir}/objects/task.json`,
  });
  t.same(resolved.fields['status'], {
    type: 'select', options: ['open', 'done'], name: 'status', label: 'Status', required: false, unique: false,
    indexed: false, searchable: false, readonly: false, optionValues: ['open', 'done'],
  });
  t.equal(resolved.fields['title']!.required, true);
});

t.test('an object without owner defaults to public_read_write', async (t) => {
  const dir = writeApp(t, { 'setting.json': { name: 'setting', owner: false, fields: { key: { type: 'text' } } } });
  const { objects, errors } = await loadApps([dir]);
  t.same(errors, []);
  t.match(objects.get('setting'), { owner: false, sharingModel: 'public_read_write' });
});

t.test('unknown key, unknown type and unknown reference fail naming file and path', async (t) => {
  const dir = writeApp(t, {
    'task.json': { ...task, colour: 'blue', fields: { ...task.fields, account: { type: 'lookup', reference: 'acount' } } },
    'note.json': { name: 'note', fields: { body: { type: 'richtext' } } },
    'account.json': account,
  });
  const { objects, errors } = await loadApps([dir]);
  t.same(rows(errors, dir), [
    { code: 'METADATA_INVALID', file: 'objects/note.json', path: 'fields.body.type', reason: 'unknown field type "richtext"; expected one of text, textarea, email, url, phone, integer, number, currency, percent, boolean, date, datetime, select, multiselect, lookup, json, autonumber, formula' },
    { code: 'METADATA_INVALID', file: 'objects/task.json', path: 'colour', reason: "unknown key 'colour'; allowed keys: name, label, pluralLabel, description, fields, apiEnabled, apiMethods, maxPageSize, sharingModel, owner, enable, userActions, validationRules, policies, indexes, nameField, search" },
    { code: 'METADATA_INVALID', file: 'objects/task.json', path: 'fields.account.reference', reason: "unknown object 'acount' (did you mean 'account'?)" },
  ]);
  t.equal(errors[2]!.message, `Metadata is not valid in ${dir}/objects/task.json at fields.account.reference: unknown object 'acount' (did you mean 'account'?)`);
  t.same([...objects.keys()], ['account'], 'only valid objects are returned');
});

t.test('a reference to an object of another app resolves; to an engine object with knownObjects', async (t) => {
  const { crm, other } = writeApps(t, {
    crm: appFixture({ 'account.json': account }),
    other: appFixture({ 'case.json': { name: 'case', fields: { account: { type: 'lookup', reference: 'account' }, assignee: { type: 'lookup', reference: 'sys_user' } } } }, { ...manifest, name: 'support' }),
  }) as { crm: string; other: string };
  const without = await loadApps([crm, other]);
  t.same(rows(without.errors, other), [{ code: 'METADATA_INVALID', file: 'objects/case.json', path: 'fields.assignee.reference', reason: "unknown object 'sys_user'; loaded objects: account, case" }]);
  const withSystem = await loadApps([crm, other], { knownObjects: ['sys_user'] });
  t.same(withSystem.errors, []);
  t.same([...withSystem.objects.keys()], ['account', 'case']);
});

t.test('expression errors are load errors naming file, path and expression', async (t) => {
  const dir = writeApp(t, {
    'deal.json': {
      name: 'deal',
      fields: {
        amount: { type: 'currency' },
        due: { type: 'date' },
        weighted: { type: 'formula', expression: 'amount * 2.0', returns: 'number' },
        late: { type: 'formula', expression: 'today() - record.due', returns: 'integer' },
      },
      validationRules: [
        { name: 'positive', expression: 'record.amount', message: 'must be positive' },
        { name: 'soon', expression: 'inDays(record.due) < 10', message: 'too late' },
      ],
    },
  });
  const { errors, objects } = await loadApps([dir]);
  t.same(rows(errors, dir), [
    { code: 'METADATA_INVALID', file: 'objects/deal.json', path: 'fields.weighted.expression', reason: "bare field reference 'amount': write 'record.amount' (in expression 'amount * 2.0')" },
    { code: 'METADATA_INVALID', file: 'objects/deal.json', path: 'fields.late.expression', reason: "date arithmetic with + and - is not supported: use addDays(date, n) or addMonths(date, n) to shift a date, daysBetween(from, to) for the days between two dates, daysFromNow(date) for the days until a date (in expression 'today() - record.due')" },
    { code: 'METADATA_INVALID', file: 'objects/deal.json', path: 'validationRules[0].expression', reason: "the expression yields double, but bool is expected (in expression 'record.amount')" },
    { code: 'METADATA_INVALID', file: 'objects/deal.json', path: 'validationRules[1].expression', reason: "unknown function 'inDays()'; available: today(), now(), daysBetween(from, to), daysFromNow(date), addDays(date, days), addMonths(date, months) and the CEL built-ins (size, contains, startsWith, matches, int, double, string, has, ...) (in expression 'inDays(record.due) < 10')" },
  ]);
  t.equal(objects.size, 0);
});

t.test('an app whose protocol does not include the runtime is refused', async (t) => {
  const dir = writeApp(t, { 'task.json': { name: 'task', fields: { x: { type: 'nope' } } } }, { name: 'legacy', version: '2.0.0', protocol: '^15.0.0' });
  const { apps, objects, errors } = await loadApps([dir]);
  t.equal(errors.length, 1, 'its objects are not checked against a language it was not written for');
  t.match(errors[0], {
    code: 'KERNEL_PROTOCOL_INCOMPATIBLE',
    details: { kind: 'App package', plugin: 'legacy', version: '2.0.0', range: '^15.0.0', protocol: '16.0.0' },
    message: /^App package 'legacy' 2\.0\.0 targets protocol '\^15\.0\.0', but this runtime speaks protocol 16\.0\.0\. Fix: upgrade/,
  });
  t.same(apps, []);
  t.equal(objects.size, 0);
});

t.test('app.json problems name the file and the key', async (t) => {
  const dir = writeApp(t, { 'account.json': account }, { name: 'Demo App', version: 'one', protocol: 'latest', extra: true });
  const { errors } = await loadApps([dir]);
  t.same(rows(errors, dir), [
    { code: 'METADATA_INVALID', file: 'app.json', path: 'name', reason: 'must be lowercase letters and digits, words joined by - or _' },
    { code: 'METADATA_INVALID', file: 'app.json', path: 'version', reason: 'must be a semver version such as 1.0.0' },
    { code: 'METADATA_INVALID', file: 'app.json', path: 'protocol', reason: "must be a semver range such as '^16.0.0'" },
    { code: 'METADATA_INVALID', file: 'app.json', path: 'extra', reason: "unknown key 'extra'; allowed keys: name, label, version, protocol" },
  ]);
  const missing = t.testdir({ objects: {} });
  t.same(rows((await loadApps([missing])).errors, missing), [
    { code: 'METADATA_INVALID', file: 'app.json', path: '(root)', reason: 'file not found: every app directory needs app.json with {name, version, protocol}' },
  ]);
});

t.test('file-level problems: invalid JSON, name mismatch, unsupported file, duplicates across apps', async (t) => {
  const { dir, other } = writeApps(t, {
    dir: appFixture({
      'broken.json': '{ "name": "broken", ',
      'tasks.json': task,
      'notes.yaml': 'name: notes',
      'README.md': 'ignored',
      'account.json': account,
    }),
    other: appFixture({ 'account.json': account }, { ...manifest, name: 'other' }),
  }) as { dir: string; other: string };
  const { errors } = await loadApps([dir, other]);
  const found = rows(errors, dir).map((r) => ({ ...r, file: r.file.replace(`${other}/`, 'other:'), reason: r.reason.replace(`${dir}/`, '') }));
  t.equal(found.length, 4);
  t.match(found[0], { file: 'objects/broken.json', path: '(root)', reason: /^is not valid JSON: / });
  t.same(found.slice(1), [
    { code: 'METADATA_INVALID', file: 'objects/notes.yaml', path: '(root)', reason: 'unsupported file: objects are declared in objects/<name>.json or objects/<name>.ts' },
    { code: 'METADATA_INVALID', file: 'objects/tasks.json', path: 'name', reason: "object 'task' must be declared in a file named task.json, not tasks.json" },
    { code: 'METADATA_INVALID', file: 'other:objects/account.json', path: 'name', reason: "object 'account' is already declared in objects/account.json" },
  ]);
});

t.test('problems in several files and apps are all collected', async (t) => {
  const { one, two } = writeApps(t, {
    one: appFixture({ 'a.json': { name: 'a', fields: { x: { type: 'nope' } } }, 'b.json': { name: 'b', fields: { y: { type: 'select' } } } }),
    two: appFixture({ 'c.json': { name: 'c', fields: { z: { type: 'lookup', reference: 'nowhere' } } } }, { ...manifest, name: 'two' }),
  }) as { one: string; two: string };
  const { errors } = await loadApps([one, two]);
  t.same(errors.map((e) => `${String(e.details['file']).split('/').slice(-1)[0]}#${String(e.details['path'])}`), ['a.json#fields.x.type', 'b.json#fields.y.options', 'c.json#fields.z.reference']);
});

t.test('the crm example app loads five objects without errors', async (t) => {
  const { apps, objects, errors } = await loadApps([crmDir]);
  t.same(errors, []);
  t.same([...objects.keys()], ['account', 'contact', 'lead', 'opportunity', 'task']);
  t.same(apps.map((a) => a.manifest), [{ name: 'crm', label: 'CRM', version: '1.0.0', protocol: '^16.0.0' }]);
  for (const object of objects.values()) t.equal(object.apiMethods, null, `${object.name} allows every operation`);

  const lead = objects.get('lead')!;
  t.same(lead.fields['status']!.optionValues, ['new', 'working', 'nurturing', 'qualified', 'unqualified', 'converted']);
  t.same(['converted_account', 'converted_contact', 'converted_opportunity'].map((f) => lead.fields[f]!.reference), ['account', 'contact', 'opportunity']);
  t.match(lead.fields['lead_number'], { type: 'autonumber', format: 'LEAD-{0000}', readonly: true, unique: true });

  const opportunity = objects.get('opportunity')!;
  t.equal(opportunity.pluralLabel, 'Opportunities');
  t.equal(opportunity.fields['expected_revenue']!.readonly, true);
  t.equal(opportunity.fields['expected_revenue']!.compiled!.evaluate({ amount: 20000, probability: 40 }), 8000);
  t.equal(opportunity.fields['expected_revenue']!.compiled!.evaluate({ amount: null, probability: 40 }), null);
  t.equal(opportunity.fields['days_to_close']!.compiled!.evaluate({ close_date: '2024-03-10' }, { now: new Date('2024-02-29T12:00:00Z') }), 10);
  t.equal(opportunity.validationRules[0]!.compiled.evaluate({ amount: -5 }), false);
  t.same(opportunity.validationRules[0]!.on, ['create', 'update']);

  const overdue = objects.get('task')!.fields['is_overdue']!.compiled!;
  const at = { now: new Date('2024-02-29T12:00:00Z') };
  t.equal(overdue.evaluate({ status: 'open', due_date: '2024-02-28' }, at), true);
  t.equal(overdue.evaluate({ status: 'open', due_date: '2024-02-29' }, at), false, 'due today is not overdue');
  t.equal(overdue.evaluate({ status: 'done', due_date: '2024-02-01' }, at), false);
  t.equal(overdue.evaluate({ status: 'open', due_date: null }, at), null);

  t.equal(objects.get('contact')!.nameField, 'last_name');
  t.equal(objects.get('account')!.nameField, 'name');
  t.equal(objects.get('account')!.fields['parent_account']!.reference, 'account', 'a lookup may reference its own object');
});

t.test('a TypeScript-authored object directory loads', async (t) => {
  const { apps, objects, errors } = await loadApps([crmDir, tsAppDir]);
  t.same(errors, []);
  t.same(apps.map((a) => a.manifest.name), ['crm', 'projects']);
  const project = objects.get('project')!;
  t.match(project, { name: 'project', app: 'projects', sharingModel: 'public_read', source: `${tsAppDir}/objects/project.ts` });
  t.equal(project.fields['remaining']!.compiled!.evaluate({ budget: 1000, spent: 250 }), 750);
  t.equal(project.fields['duration_days']!.compiled!.evaluate({ starts_on: '2024-02-01', ends_on: '2024-03-01' }), 29);
  t.equal(project.validationRules[0]!.compiled.evaluate({ starts_on: '2024-03-01', ends_on: '2024-02-01' }), false);
});

t.test('a TypeScript object file without a default export is reported', async (t) => {
  const dir = writeApp(t, { 'thing.ts': 'export const thing = { name: "thing" };\n' });
  const { errors } = await loadApps([dir]);
  t.same(rows(errors, dir), [{ code: 'METADATA_INVALID', file: 'objects/thing.ts', path: '(root)', reason: 'has no default export: export default defineObject({...})' }]);
});
