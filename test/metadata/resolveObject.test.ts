/** Defaults of the declaration language and the validation-rule check the engine runs on writes. */
import t from 'tap';
import { checkValidationRules } from '../../metadata/checkValidationRules.ts';
import { humanize, pluralize } from '../../metadata/names.ts';
import { resolveObject } from '../../metadata/resolveObject.ts';
import type { ObjectDefinition } from '../../metadata/types.ts';

const resolve = (definition: ObjectDefinition) => {
  const { object, errors } = resolveObject({ definition, source: 'objects/x.json', app: 'demo' });
  if (!object) throw new Error(errors.map((e) => e.message).join('\n'));
  return object;
};

t.test('labels come from names', async (t) => {
  t.equal(humanize('lead_number'), 'Lead Number');
  t.equal(humanize('x2_y'), 'X2 Y');
  t.same(['Task', 'Opportunity', 'Address', 'Box', 'Day', 'Branch'].map(pluralize), ['Tasks', 'Opportunities', 'Addresses', 'Boxes', 'Days', 'Branches']);
  const object = resolve({ name: 'sales_region', fields: { region_code: { type: 'text' } } });
  t.same([object.label, object.pluralLabel, object.fields['region_code']!.label], ['Sales Region', 'Sales Regions', 'Region Code']);
});

t.test('declared values win over defaults', async (t) => {
  const object = resolve({
    name: 'doc', label: 'Document', pluralLabel: 'Docs', fields: { title: { type: 'text', label: 'Heading' } },
    apiEnabled: false, apiMethods: ['get', 'list'], maxPageSize: 50, sharingModel: 'public_read',
    enable: { feeds: false, files: true }, userActions: { create: true }, indexes: [{ fields: ['title'], unique: true }], description: 'Docs',
  });
  t.match(object, {
    label: 'Document', pluralLabel: 'Docs', apiEnabled: false, apiMethods: ['get', 'list'], maxPageSize: 50, sharingModel: 'public_read',
    enable: { activities: true, feeds: false, files: true, trackHistory: false, trash: false }, userActions: { create: true },
    indexes: [{ fields: ['title'], unique: true }], description: 'Docs',
  });
  t.equal(object.fields['title']!.label, 'Heading');
});

t.test('nameField: declared, else name, else the first text field, else none', async (t) => {
  t.equal(resolve({ name: 'a', fields: { code: { type: 'text' }, name: { type: 'text' } } }).nameField, 'name');
  t.equal(resolve({ name: 'a', fields: { n: { type: 'integer' }, code: { type: 'text' } } }).nameField, 'code');
  t.equal(resolve({ name: 'a', fields: { n: { type: 'integer' } } }).nameField, null);
  t.equal(resolve({ name: 'a', fields: { code: { type: 'text' }, email: { type: 'email' } }, nameField: 'email' }).nameField, 'email');
});

t.test('computed fields are read-only; options are normalized', async (t) => {
  const object = resolve({
    name: 'a',
    fields: {
      number: { type: 'autonumber', format: 'A-{00}' },
      total: { type: 'formula', expression: '1 + 1', returns: 'integer' },
      level: { type: 'select', options: [{ value: 'gold', label: 'Gold' }, 'silver'] },
    },
  });
  t.same([object.fields['number']!.readonly, object.fields['total']!.readonly], [true, true]);
  t.same(object.fields['level']!.optionValues, ['gold', 'silver']);
  t.equal(object.fields['total']!.compiled!.evaluate({}), 2);
});

t.test('checkValidationRules: false violates, null passes, `on` selects the writes', async (t) => {
  const object = resolve({
    name: 'deal',
    fields: { amount: { type: 'currency' }, stage: { type: 'select', options: ['open', 'won'] }, closed_on: { type: 'date' } },
    validationRules: [
      { name: 'amount_positive', expression: 'record.amount > 0.0', message: 'The amount must be positive.', field: 'amount' },
      { name: 'won_needs_date', expression: 'record.stage != "won" || has(record.closed_on)', message: 'A won deal needs a close date.', on: ['update'] },
    ],
  });
  t.same(checkValidationRules(object, { amount: 10, stage: 'open' }, 'create'), []);
  t.same(checkValidationRules(object, { amount: null, stage: 'open' }, 'create'), [], 'a null field does not break a rule');
  t.same(checkValidationRules(object, { amount: -1, stage: 'won' }, 'create'), [
    { rule: 'amount_positive', field: 'amount', message: 'The amount must be positive.' },
  ], 'won_needs_date only runs on update');
  t.same(checkValidationRules(object, { amount: -1, stage: 'won' }, 'update'), [
    { rule: 'amount_positive', field: 'amount', message: 'The amount must be positive.' },
    { rule: 'won_needs_date', field: 'won_needs_date', message: 'A won deal needs a close date.' },
  ]);
  t.same(checkValidationRules(object, { amount: 5, stage: 'won', closed_on: '2024-01-02' }, 'update'), []);
});

t.test('expression errors are returned, not thrown, and the object is withheld', async (t) => {
  const { object, errors } = resolveObject({
    definition: { name: 'a', fields: { x: { type: 'formula', expression: 'y', returns: 'text' } }, validationRules: [{ name: 'r', expression: 'nope()', message: 'm' }] },
    source: 'objects/a.json', app: 'demo',
  });
  t.equal(object, null);
  t.same(errors.map((e) => [e.details['path'], e.details['expression']]), [['fields.x.expression', 'y'], ['validationRules[0].expression', 'nope()']]);
});

t.test('search weights: every searchable field, 1 unless declared; none without searchable fields', async (t) => {
  const object = resolve({
    name: 'doc',
    fields: { title: { type: 'text', searchable: true }, body: { type: 'textarea', searchable: true }, code: { type: 'text' } },
    search: { weights: { title: 4 } },
  });
  t.same(object.search, { weights: { title: 4, body: 1 } });
  t.equal(resolve({ name: 'doc', fields: { code: { type: 'text' } } }).search, undefined);
});
