import type { FieldDefinition, ObjectIndex, ResolvedField, ResolvedObject } from '../../metadata/types.ts';

type FieldInput = FieldDefinition & Partial<Pick<ResolvedField, 'compiled'>>;

/** A ResolvedObject built by hand, with the loader's defaults, so data tests need no metadata loader. */
export function resolvedObject(name: string, fields: Record<string, FieldInput>, overrides: Partial<ResolvedObject> = {}): ResolvedObject {
  const resolved: Record<string, ResolvedField> = {};
  for (const [fieldName, field] of Object.entries(fields)) {
    resolved[fieldName] = {
      ...field,
      name: fieldName,
      label: field.label ?? fieldName,
      required: field.required ?? false,
      unique: field.unique ?? false,
      indexed: field.indexed ?? false,
      searchable: field.searchable ?? false,
      readonly: field.readonly ?? (field.type === 'formula' || field.type === 'autonumber'),
      ...(field.options ? { optionValues: field.options.map((o) => (typeof o === 'string' ? o : o.value)) } : {}),
    };
  }
  return {
    name,
    label: name,
    pluralLabel: `${name}s`,
    fields: resolved,
    apiEnabled: true,
    apiMethods: null,
    maxPageSize: 200,
    sharingModel: 'private',
    owner: true,
    enable: { activities: true, feeds: true, files: false, trackHistory: false, trash: false },
    validationRules: [],
    policies: [],
    indexes: [] as ObjectIndex[],
    nameField: Object.hasOwn(fields, 'name') ? 'name' : null,
    system: false,
    source: `test/${name}`,
    app: 'test',
    ...overrides,
  };
}

/** Accounts and contacts: every field type, a self lookup (parent) for nested expand. */
export const account = resolvedObject(
  'account',
  {
    name: { type: 'text', unique: true },
    industry: { type: 'select', options: ['tech', 'finance', 'health'] },
    revenue: { type: 'currency' },
    employees: { type: 'integer' },
    active: { type: 'boolean' },
    founded: { type: 'date' },
    tags: { type: 'multiselect', options: ['red', 'blue', 'green'] },
    meta: { type: 'json' },
    parent: { type: 'lookup', reference: 'account' },
    code: { type: 'autonumber', format: 'ACC-{000}' },
  },
  { maxPageSize: 3 },
);

export const contact = resolvedObject('contact', {
  name: { type: 'text' },
  email: { type: 'email' },
  account: { type: 'lookup', reference: 'account' },
  score: { type: 'number' },
  priority: { type: 'integer' },
  birthday: { type: 'date' },
  last_seen: { type: 'datetime' },
  notes: { type: 'textarea' },
  label: {
    type: 'formula',
    returns: 'text',
    expression: 'record.name',
    compiled: { source: 'record.name', type: 'string', reads: ['name', 'email'], evaluate: (r) => `${String(r.name)} <${String(r.email ?? '-')}>` },
  },
});

export const registry = new Map<string, ResolvedObject>([
  ['account', account],
  ['contact', contact],
]);
