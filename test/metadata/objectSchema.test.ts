/** Declaration schema: every problem is reported with its dotted path and a reason that says what to write. */
import t from 'tap';
import { defineObject } from '../../metadata/defineObject.ts';
import { parseObjectDefinition } from '../../metadata/parseObjectDefinition.ts';
import type { MetadataProblem } from '../../metadata/metadataError.ts';

const valid = {
  name: 'task',
  label: 'Task',
  fields: {
    title: { type: 'text', required: true },
    status: { type: 'select', options: ['open', 'done'] },
    account: { type: 'lookup', reference: 'account' },
  },
};

const problemsOf = (input: unknown): MetadataProblem[] => {
  const parsed = parseObjectDefinition(input);
  return parsed.ok ? [] : parsed.problems;
};
const withField = (field: unknown, extra: Record<string, unknown> = {}) => ({ name: 'thing', fields: { x: field }, ...extra });

t.test('the issue example is valid and keeps its values', async (t) => {
  const parsed = parseObjectDefinition(valid);
  t.same(parsed, { ok: true, definition: valid });
});

t.test('every field type is accepted with its own keys', async (t) => {
  const fields = {
    a: { type: 'text', maxLength: 10, searchable: true, default: 'x' },
    b: { type: 'textarea' }, c: { type: 'email', unique: true }, d: { type: 'url' }, e: { type: 'phone' },
    f: { type: 'integer', min: 0, max: 10, default: 3 }, g: { type: 'number', scale: 3 }, h: { type: 'currency' }, i: { type: 'percent' },
    j: { type: 'boolean', default: true }, k: { type: 'date', default: '2024-02-29' }, l: { type: 'datetime', default: '2024-01-01T10:00:00Z' },
    m: { type: 'select', options: [{ value: 'a', label: 'A' }, 'b'], default: 'a' }, n: { type: 'multiselect', options: ['x', 'y'], default: ['x'] },
    o: { type: 'lookup', reference: 'account' }, p: { type: 'json', default: { any: ['thing'] } },
    q: { type: 'autonumber', format: 'Q-{000}' }, r: { type: 'formula', expression: 'record.f * 2', returns: 'integer' },
  };
  t.same(problemsOf({ name: 'all_types', fields }), []);
});

const cases: Array<[string, unknown, MetadataProblem[]]> = [
  ['unknown object key, with a suggestion', { ...valid, apiEnabeld: true }, [{ path: 'apiEnabeld', reason: "unknown key 'apiEnabeld' (did you mean 'apiEnabled'?)" }]],
  ['unknown field key', withField({ type: 'text', requird: true }), [{ path: 'fields.x.requird', reason: "unknown key 'requird' for a text field (did you mean 'required'?)" }]],
  ['a key of another field type', withField({ type: 'text', options: ['a'] }), [{ path: 'fields.x.options', reason: "unknown key 'options' for a text field (it applies to select, multiselect fields)" }]],
  ['unknown key in enable', { ...valid, enable: { feed: false } }, [{ path: 'enable.feed', reason: "unknown key 'feed' (did you mean 'feeds'?)" }]],
  ['unknown key in an option', withField({ type: 'select', options: [{ value: 'a', lable: 'A' }] }), [{ path: 'fields.x.options[0].lable', reason: "unknown key 'lable' (did you mean 'label'?)" }]],
  ['unknown field type', withField({ type: 'txt' }), [{ path: 'fields.x.type', reason: 'unknown field type "txt" (did you mean \'text\'?); expected one of text, textarea, email, url, phone, integer, number, currency, percent, boolean, date, datetime, select, multiselect, lookup, json, autonumber, formula' }]],
  ['missing field type', withField({ label: 'X' }), [{ path: 'fields.x.type', reason: 'is required: one of text, textarea, email, url, phone, integer, number, currency, percent, boolean, date, datetime, select, multiselect, lookup, json, autonumber, formula' }]],
  ['select needs options', withField({ type: 'select' }), [{ path: 'fields.x.options', reason: 'is required: list the allowed values, e.g. ["open", "done"]' }]],
  ['select options must not be empty', withField({ type: 'multiselect', options: [] }), [{ path: 'fields.x.options', reason: 'must list at least one option' }]],
  ['duplicate option and a default outside the options', withField({ type: 'select', options: ['a', 'a'], default: 'b' }), [
    { path: 'fields.x.options[1]', reason: "option 'a' is listed twice" },
    { path: 'fields.x.default', reason: "default 'b' is not one of the options (a, a)" },
  ]],
  ['lookup needs reference', withField({ type: 'lookup' }), [{ path: 'fields.x.reference', reason: 'is required: name the referenced object' }]],
  ['formula needs expression and returns', withField({ type: 'formula' }), [
    { path: 'fields.x.expression', reason: 'is required: a CEL expression over record.<field>' },
    { path: 'fields.x.returns', reason: 'is required: one of text, number, integer, boolean, date, datetime' },
  ]],
  ['formula returns an unknown type', withField({ type: 'formula', expression: '1', returns: 'int' }), [{ path: 'fields.x.returns', reason: 'must be one of text, number, integer, boolean, date, datetime' }]],
  ['formula is computed: no required', withField({ type: 'formula', expression: '1', returns: 'integer', required: true }), [{ path: 'fields.x.required', reason: "unknown key 'required' for a formula field (it applies to text, textarea, email, url, phone, integer, number, currency, percent, boolean, date, datetime, select, multiselect, lookup, json fields)" }]],
  ['autonumber format needs one placeholder', withField({ type: 'autonumber', format: 'LEAD-' }), [{ path: 'fields.x.format', reason: 'must contain exactly one {0...} placeholder, e.g. LEAD-{0000}' }]],
  ['autonumber format with two placeholders', withField({ type: 'autonumber', format: '{00}-{00}' }), [{ path: 'fields.x.format', reason: 'must contain exactly one {0...} placeholder, e.g. LEAD-{0000}' }]],
  ['object name must be snake_case', { ...valid, name: 'SalesTask' }, [{ path: 'name', reason: "'SalesTask' must be snake_case (lowercase letters, digits and single underscores, starting with a letter)" }]],
  ['object name is required', { fields: valid.fields }, [{ path: 'name', reason: 'is required: the snake_case object name' }]],
  ['field names must be snake_case', { name: 'thing', fields: { dueDate: { type: 'date' } } }, [{ path: 'fields.dueDate', reason: "field name 'dueDate' must be snake_case (lowercase letters, digits and single underscores, starting with a letter)" }]],
  ['field names must not be system fields', { name: 'thing', fields: { created_at: { type: 'datetime' } } }, [{ path: 'fields.created_at', reason: "'created_at' is a system field present on every object (id, version, created_at, updated_at, created_by, updated_by, owner_id); choose another name" }]],
  ['fields are required', { name: 'thing' }, [{ path: 'fields', reason: 'is required: declare at least one field' }]],
  ['fields must not be empty', { name: 'thing', fields: {} }, [{ path: 'fields', reason: 'declare at least one field' }]],
  ['apiMethods values come from the closed list', { ...valid, apiMethods: ['get', 'fetch'] }, [{ path: 'apiMethods[1]', reason: 'must be one of get, list, create, update, delete, upsert, bulk, aggregate, history, search, restore, purge, import, export' }]],
  ['apiMethods without duplicates', { ...valid, apiMethods: ['get', 'get'] }, [{ path: 'apiMethods[1]', reason: "'get' is listed twice" }]],
  ['maxPageSize at least 1', { ...valid, maxPageSize: 0 }, [{ path: 'maxPageSize', reason: 'must be at least 1' }]],
  ['maxPageSize at most 10000', { ...valid, maxPageSize: 10_001 }, [{ path: 'maxPageSize', reason: 'must be at most 10000' }]],
  ['maxPageSize an integer', { ...valid, maxPageSize: 2.5 }, [{ path: 'maxPageSize', reason: 'must be an integer' }]],
  ['sharingModel from the list', { ...valid, sharingModel: 'open' }, [{ path: 'sharingModel', reason: 'must be one of private, public_read, public_read_write' }]],
  ['a private object needs an owner', { ...valid, owner: false, sharingModel: 'private' }, [{ path: 'sharingModel', reason: "an object without an owner (owner: false) cannot be private: nobody owns its records; use 'public_read' or 'public_read_write'" }]],
  ['flags are booleans', withField({ type: 'text', required: 'yes' }), [{ path: 'fields.x.required', reason: 'must be a boolean, got string "yes"' }]],
  ['default matches the field type', withField({ type: 'integer', default: 1.5 }), [{ path: 'fields.x.default', reason: 'must be an integer' }]],
  ['date default is a calendar date', withField({ type: 'date', default: '2023-02-29' }), [{ path: 'fields.x.default', reason: 'is not a valid calendar date' }]],
  ['min above max', withField({ type: 'number', min: 5, max: 1 }), [{ path: 'fields.x.min', reason: 'min (5) is greater than max (1)' }]],
  ['validation rule needs a message', { ...valid, validationRules: [{ name: 'r', expression: 'true' }] }, [{ path: 'validationRules[0].message', reason: 'is required: the sentence shown when the rule fails' }]],
  ['validation rule names are unique and snake_case', { ...valid, validationRules: [{ name: 'r', expression: 'true', message: 'm' }, { name: 'r', expression: 'true', message: 'm' }, { name: 'Bad', expression: 'true', message: 'm' }] }, [
    { path: 'validationRules[1].name', reason: "rule 'r' is declared twice" },
    { path: 'validationRules[2].name', reason: "'Bad' must be snake_case (lowercase letters, digits and single underscores, starting with a letter)" },
  ]],
  ['validation rule field is declared', { ...valid, validationRules: [{ name: 'r', expression: 'true', message: 'm', field: 'nope' }] }, [{ path: 'validationRules[0].field', reason: "'nope' is not a declared field" }]],
  ['validation rule on is create or update', { ...valid, validationRules: [{ name: 'r', expression: 'true', message: 'm', on: ['delete'] }] }, [{ path: 'validationRules[0].on[0]', reason: "must be 'create' or 'update'" }]],
  ['nameField names a text-like field', { ...valid, nameField: 'status' }, [{ path: 'nameField', reason: "'status' is a select field; the name field must be one of text, email, phone, url, autonumber" }]],
  ['nameField names a declared field', { ...valid, nameField: 'nope' }, [{ path: 'nameField', reason: "'nope' is not a declared field; declared: title, status, account" }]],
  ['index fields exist and are indexable', { ...valid, fields: { ...valid.fields, meta: { type: 'json' } }, indexes: [{ fields: ['status', 'nope', 'meta', 'created_at'] }] }, [
    { path: 'indexes[0].fields[1]', reason: "'nope' is not a field of this object" },
    { path: 'indexes[0].fields[2]', reason: "'meta' is a json field, which cannot be indexed" },
  ]],
  ['searchable only where search applies', withField({ type: 'integer', searchable: true }), [{ path: 'fields.x.searchable', reason: "unknown key 'searchable' for a integer field (it applies to text, textarea, email, url, phone, select, autonumber fields)" }]],
  ['search weights name searchable fields', { ...valid, fields: { ...valid.fields, body: { type: 'textarea', searchable: true } }, search: { weights: { body: 2, title: 3, nope: 1 } } }, [
    { path: 'search.weights.title', reason: `'title' is not searchable; set "searchable": true on the field or remove its weight` },
    { path: 'search.weights.nope', reason: "'nope' is not a declared field; declared: title, status, account, body" },
  ]],
  ['search weights are 1 to 4', { ...valid, fields: { title: { type: 'text', searchable: true } }, search: { weights: { title: 5 } } }, [{ path: 'search.weights.title', reason: 'must be a weight: 1, 2, 3 or 4 (4 ranks highest)' }]],
  ['unknown key in search', { ...valid, search: { weight: {} } }, [{ path: 'search.weight', reason: "unknown key 'weight' (did you mean 'weights'?)" }]],
];

for (const [name, input, expected] of cases) {
  t.test(name, async (t) => {
    t.same(problemsOf(input), expected);
  });
}

t.test('all problems of one declaration are reported together', async (t) => {
  const problems = problemsOf({ name: 'Bad', colour: 'red', fields: { a: { type: 'nope' }, b: { type: 'select' }, id: { type: 'text' } }, maxPageSize: 0 });
  t.same(problems.map((p) => p.path).sort(), ['colour', 'fields.a.type', 'fields.b.options', 'fields.id', 'maxPageSize', 'name']);
});

t.test('defineObject returns the declaration unchanged and typed', async (t) => {
  const def = defineObject({ name: 'note', fields: { body: { type: 'textarea', required: true } } });
  t.equal(def.fields.body.type, 'textarea');
  t.same(parseObjectDefinition(def), { ok: true, definition: { name: 'note', fields: { body: { type: 'textarea', required: true } } } });
  // @ts-expect-error an unknown field type is a compile error in TypeScript declarations
  const wrong = defineObject({ name: 'note', fields: { body: { type: 'txt' } } });
  t.equal(problemsOf(wrong)[0]?.path, 'fields.body.type');
});
