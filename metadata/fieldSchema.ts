import { z } from 'zod';
import type { FieldType, FormulaType } from './types.ts';
import { MAX_BYTES_CEILING, MAX_LENGTH_CEILING } from './fieldLimits.ts';

/** Result types a formula may declare in `returns`. */
export const FORMULA_TYPES = ['text', 'number', 'integer', 'boolean', 'date', 'datetime'] as const satisfies readonly FormulaType[];

const DATE = /^\d{4}-\d{2}-\d{2}$/;
/** `{0000}` is the zero-padded sequence; exactly one per format. */
const AUTONUMBER_TOKEN = /\{0+\}/g;

const label = z.string().min(1, 'must be a non-empty string');
const flag = z.boolean();

const condition = z.string({ error: 'must be a CEL expression over record.<field>, e.g. "record.stage == \'won\'"' }).min(1, 'must not be empty');
/** Conditional rules (CEL over the record, compiled at load): see metadata/fieldConditions.ts. */
const visibility = { visibleWhen: condition.optional() };
const conditional = { ...visibility, readonlyWhen: condition.optional(), requiredWhen: condition.optional() };

/** Keys every field accepts. */
const base = { label: label.optional(), help: z.string().optional(), readonly: flag.optional(), ...conditional };
/** Keys of fields stored in a column. */
const stored = { required: flag.optional(), unique: flag.optional(), indexed: flag.optional() };
const bounds = { min: z.number().optional(), max: z.number().optional() };

const selectOption = z.union([
  z.string().min(1, 'an option value must be a non-empty string'),
  z.strictObject({ value: z.string().min(1, 'an option value must be a non-empty string'), label: label.optional() }),
]);
const options = z.array(selectOption, { error: (i) => (i.input === undefined ? 'is required: list the allowed values, e.g. ["open", "done"]' : 'must be an array of values') })
  .min(1, 'must list at least one option');

const isoDateTime = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time such as 2024-01-31T09:00:00Z' });
const isoDate = z.string().regex(DATE, 'must be a date such as 2024-01-31').refine(isCalendarDate, 'is not a valid calendar date');

function isCalendarDate(value: string): boolean {
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

function textLike<T extends FieldType>(type: T) {
  return z.strictObject({
    type: z.literal(type), ...base, ...stored,
    searchable: flag.optional(),
    default: z.string().optional(),
    maxLength: z.number().int('must be an integer').min(1, 'must be at least 1').max(MAX_LENGTH_CEILING, `must be at most ${MAX_LENGTH_CEILING}`).optional(),
  });
}

function numeric<T extends FieldType>(type: T) {
  return z.strictObject({
    type: z.literal(type), ...base, ...stored, ...bounds,
    default: z.number().optional(),
    scale: z.number().int().min(0).max(10).optional(),
  });
}

/** One strict schema per field type: a key that does not apply to the type is refused, not ignored. */
export const FIELD_SCHEMAS = {
  text: textLike('text'),
  textarea: textLike('textarea'),
  email: textLike('email'),
  url: textLike('url'),
  phone: textLike('phone'),
  integer: z.strictObject({ type: z.literal('integer'), ...base, ...stored, ...bounds, default: z.number().int('must be an integer').optional() }),
  number: numeric('number'),
  currency: numeric('currency'),
  percent: numeric('percent'),
  boolean: z.strictObject({ type: z.literal('boolean'), ...base, required: flag.optional(), indexed: flag.optional(), default: z.boolean().optional() }),
  date: z.strictObject({ type: z.literal('date'), ...base, ...stored, default: isoDate.optional() }),
  datetime: z.strictObject({ type: z.literal('datetime'), ...base, ...stored, default: isoDateTime.optional() }),
  select: z.strictObject({ type: z.literal('select'), ...base, ...stored, searchable: flag.optional(), options, default: z.string().optional() }),
  multiselect: z.strictObject({ type: z.literal('multiselect'), ...base, required: flag.optional(), options, default: z.array(z.string()).optional() }),
  lookup: z.strictObject({
    type: z.literal('lookup'), ...base, ...stored,
    reference: z.string({ error: (i) => (i.input === undefined ? 'is required: name the referenced object' : 'must be an object name') }),
  }),
  json: z.strictObject({
    type: z.literal('json'), ...base, required: flag.optional(), default: z.unknown().optional(),
    maxBytes: z.number().int('must be an integer').min(1, 'must be at least 1').max(MAX_BYTES_CEILING, `must be at most ${MAX_BYTES_CEILING}`).optional(),
  }),
  autonumber: z.strictObject({
    type: z.literal('autonumber'), label: base.label, help: base.help, readonly: base.readonly, ...visibility, unique: flag.optional(), indexed: flag.optional(), searchable: flag.optional(),
    format: z.string().refine((v) => (v.match(AUTONUMBER_TOKEN) ?? []).length === 1, 'must contain exactly one {0...} placeholder, e.g. LEAD-{0000}').optional(),
  }),
  formula: z.strictObject({
    type: z.literal('formula'), label: base.label, help: base.help, ...visibility,
    expression: z.string({ error: (i) => (i.input === undefined ? 'is required: a CEL expression over record.<field>' : 'must be a string') }).min(1, 'must not be empty'),
    returns: z.enum(FORMULA_TYPES, { error: (i) => (i.input === undefined ? `is required: one of ${FORMULA_TYPES.join(', ')}` : `must be one of ${FORMULA_TYPES.join(', ')}`) }),
  }),
} satisfies { [K in FieldType]: z.ZodObject };

const S = FIELD_SCHEMAS;
export const fieldDefinitionSchema = z.discriminatedUnion('type', [
  S.text, S.textarea, S.email, S.url, S.phone, S.integer, S.number, S.currency, S.percent,
  S.boolean, S.date, S.datetime, S.select, S.multiselect, S.lookup, S.json, S.autonumber, S.formula,
]);

/** Keys a field of this type accepts, for error messages. */
export function fieldKeys(type: FieldType): string[] {
  return Object.keys(FIELD_SCHEMAS[type].shape);
}

/** Field types that accept this key, for "applies to ..." hints. */
export function typesAccepting(key: string): FieldType[] {
  return (Object.keys(FIELD_SCHEMAS) as FieldType[]).filter((type) => key in FIELD_SCHEMAS[type].shape);
}
