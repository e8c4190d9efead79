import type { FieldDefinition, FieldType, FormulaType, SystemField } from '../types.ts';

export const TIMESTAMP = 'google.protobuf.Timestamp';
export const DURATION = 'google.protobuf.Duration';

const FIELD_CEL_TYPES: Record<Exclude<FieldType, 'formula'>, string> = {
  text: 'string', textarea: 'string', email: 'string', url: 'string', phone: 'string',
  integer: 'int', number: 'double', currency: 'double', percent: 'double',
  boolean: 'bool', date: TIMESTAMP, datetime: TIMESTAMP,
  select: 'string', multiselect: 'list<string>', lookup: 'string',
  json: 'dyn', autonumber: 'string',
};

const FORMULA_CEL_TYPES: Record<FormulaType, string> = {
  text: 'string', number: 'double', integer: 'int', boolean: 'bool', date: TIMESTAMP, datetime: TIMESTAMP,
};

/** CEL types a formula of each `returns` accepts (dyn is checked when evaluated). */
export const ACCEPTED_RESULT_TYPES: Record<FormulaType, readonly string[]> = {
  text: ['string', 'dyn'],
  number: ['double', 'int', 'dyn'],
  integer: ['int', 'dyn'],
  boolean: ['bool', 'dyn'],
  date: [TIMESTAMP, 'dyn'],
  datetime: [TIMESTAMP, 'dyn'],
};

export const SYSTEM_FIELD_CEL_TYPES: Record<SystemField, string> = {
  id: 'string', version: 'int', created_at: TIMESTAMP, updated_at: TIMESTAMP,
  created_by: 'string', updated_by: 'string', owner_id: 'string',
};

export function formulaCelType(returns: FormulaType): string {
  return FORMULA_CEL_TYPES[returns];
}

/** The CEL type `record.<field>` has for a declared field. */
export function fieldCelType(field: Pick<FieldDefinition, 'type' | 'returns'>): string {
  if (field.type === 'formula') return formulaCelType(field.returns ?? 'text');
  return FIELD_CEL_TYPES[field.type];
}

/** Field type a system column converts like. */
export function systemFieldType(name: SystemField): FieldType {
  if (name === 'version') return 'integer';
  if (name === 'created_at' || name === 'updated_at') return 'datetime';
  return 'text';
}
