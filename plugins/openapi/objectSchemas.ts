import type { FormulaType, ResolvedField, ResolvedObject } from '../../metadata/types.ts';
import type { Schema } from './toOpenApiSchema.ts';
import { maxBytesOf, maxLengthOf } from '../../metadata/fieldLimits.ts';

const FORMULA: Record<FormulaType, Schema> = {
  text: { type: 'string' },
  number: { type: 'number' },
  integer: { type: 'integer' },
  boolean: { type: 'boolean' },
  date: { type: 'string', format: 'date' },
  datetime: { type: 'string', format: 'date-time' },
};

function bounds(field: ResolvedField): Schema {
  return { ...(field.min !== undefined ? { minimum: field.min } : {}), ...(field.max !== undefined ? { maximum: field.max } : {}) };
}

function typeSchema(field: ResolvedField, served: ReadonlySet<string>): Schema {
  // Every text kind is bounded, by its declared maxLength or its type's default (metadata/fieldLimits.ts).
  const max = maxLengthOf(field);
  const length = max !== undefined ? { maxLength: max } : {};
  switch (field.type) {
    case 'text': case 'textarea': return { type: 'string', ...length };
    // The patterns the engine checks (plugins/data/engine/coerceInput.ts).
    case 'phone': return { type: 'string', pattern: '^\\+?[0-9][0-9 ().-]{2,31}$', ...length };
    case 'email': return { type: 'string', format: 'email', ...length };
    case 'url': return { type: 'string', format: 'uri', pattern: '^https?://', ...length };
    case 'integer': return { type: 'integer', ...bounds(field) };
    case 'number': case 'currency': case 'percent': return { type: 'number', ...bounds(field) };
    case 'boolean': return { type: 'boolean' };
    case 'date': return { type: 'string', format: 'date' };
    case 'datetime': return { type: 'string', format: 'date-time' };
    case 'select': return { type: 'string', enum: [...(field.optionValues ?? [])] };
    case 'multiselect': return { type: 'array', uniqueItems: true, items: { type: 'string', enum: [...(field.optionValues ?? [])] } };
    // An object the API does not serve is not named: it answers like one that does not exist.
    case 'lookup': return served.has(field.reference ?? '')
      ? { type: 'string', description: `Id of a ${field.reference} record (the record itself when expanded).`, 'x-reference': field.reference }
      : { type: 'string', description: 'Id of a record.' };
    case 'json': return { 'x-maxBytes': maxBytesOf(field) };
    case 'autonumber': return { type: 'string' };
    case 'formula': return { ...FORMULA[field.returns ?? 'text'] };
  }
}

/** One field as a JSON Schema property: its type, format, bounds, options, label and help. */
export function fieldSchema(field: ResolvedField, mode: 'record' | 'input', served: ReadonlySet<string> = new Set()): Schema {
  const schema: Schema = { ...typeSchema(field, served), title: field.label };
  const help = [schema.description, field.help].filter(Boolean).join(' ');
  if (help) schema.description = help;
  if (field.default !== undefined && field.type !== 'json') schema.default = field.default;
  if (mode === 'record' && field.readonly) schema.readOnly = true;
  // Conditional rules (CEL over the record), enforced by the server: see docs/data-api.md.
  for (const key of ['visibleWhen', 'readonlyWhen', 'requiredWhen'] as const) if (field[key] !== undefined) schema[`x-${key}`] = field[key];
  // An empty string is no value: a required field refuses it.
  if (mode === 'input' && field.required && schema.type === 'string' && schema.enum === undefined) schema.minLength = 1;
  // json accepts null as a value; the others take null for "no value" unless required.
  if (!field.required && field.type !== 'json') {
    schema.nullable = true;
    if (Array.isArray(schema.enum)) schema.enum = [...schema.enum, null];
  }
  // A record read with expand carries the referenced record in place of its id.
  if (mode === 'record' && field.type === 'lookup') {
    const { title, description, nullable, 'x-reference': reference } = schema;
    return { title, ...(description ? { description } : {}), ...(reference ? { 'x-reference': reference } : {}), anyOf: [{ type: 'string', ...(nullable ? { nullable } : {}) }, { type: 'object', description: 'The referenced record (expand).' }] };
  }
  return schema;
}

function systemProperties(object: ResolvedObject): Record<string, Schema> {
  const time = (title: string): Schema => ({ type: 'string', format: 'date-time', readOnly: true, title });
  const user = (title: string): Schema => ({ type: 'string', nullable: true, readOnly: true, title });
  return {
    id: { type: 'string', readOnly: true, title: 'Id', description: 'Server-made, sortable UUID v7.' },
    version: { type: 'integer', minimum: 1, readOnly: true, title: 'Version', description: 'Starts at 1, +1 per write; send it back as If-Match or expectedVersion.' },
    created_at: time('Created at'),
    updated_at: time('Updated at'),
    created_by: user('Created by'),
    updated_by: user('Updated by'),
    ...(object.owner ? { owner_id: user('Owner') } : {}),
  };
}

const writable = (object: ResolvedObject) => Object.values(object.fields).filter((f) => !f.readonly);

/**
 * Component schemas of an object: the record as returned (system and computed fields read-only),
 * the create body (required fields without a default are required), the update body and the list.
 * `served`: the objects the API serves, the only ones a lookup's description names.
 */
export function objectSchemas(object: ResolvedObject, served: ReadonlySet<string>): Record<string, Schema> {
  const fields = Object.values(object.fields);
  const record: Schema = {
    type: 'object',
    title: object.label,
    ...(object.description ? { description: object.description } : {}),
    required: ['id'],
    properties: { ...systemProperties(object), ...Object.fromEntries(fields.map((f) => [f.name, fieldSchema(f, 'record', served)])) },
  };
  const required = writable(object).filter((f) => f.required && f.default === undefined).map((f) => f.name);
  const create: Schema = {
    type: 'object',
    title: `New ${object.label}`,
    additionalProperties: false,
    properties: Object.fromEntries(writable(object).map((f) => [f.name, fieldSchema(f, 'input', served)])),
    ...(required.length > 0 ? { required } : {}),
  };
  const update: Schema = {
    type: 'object',
    title: `${object.label} changes`,
    additionalProperties: false,
    properties: {
      ...Object.fromEntries(writable(object).map((f) => [f.name, fieldSchema(f, 'input', served)])),
      expectedVersion: { type: 'integer', minimum: 1, description: 'Optimistic concurrency: the version last read (or send If-Match).' },
    },
  };
  const list: Schema = {
    type: 'object',
    title: object.pluralLabel,
    required: ['items'],
    properties: {
      items: { type: 'array', items: { $ref: `#/components/schemas/${object.name}` } },
      total: { type: 'integer', minimum: 0 },
      totalEstimated: { type: 'boolean', enum: [true], description: 'Present with count=estimated when total is an estimate.' },
      totalCapped: { type: 'boolean', enum: [true], description: 'Present with count=capped (the v1 default) when more rows match than total (10,000): "10,000+".' },
      nextCursor: { type: 'string', nullable: true, description: 'Pass back as cursor for the next page; null on the last page.' },
    },
  };
  return { [object.name]: record, [`${object.name}.create`]: create, [`${object.name}.update`]: update, [`${object.name}.list`]: list };
}
