import type { FieldType, ResolvedField, ResolvedObject, SystemField } from '../../../metadata/types.ts';

/** A field type that has a column (formulas are computed after reading, never stored). */
export type ValueType = Exclude<FieldType, 'formula'>;

export interface ColumnInfo {
  /** API field name. */
  name: string;
  /** SQL column holding the value. */
  column: string;
  type: ValueType;
  system: boolean;
  /** autonumber: the integer sequence column beside the formatted text (`<field>_seq`). */
  seqColumn: string | null;
  field: ResolvedField | null;
}

export interface ObjectColumns {
  object: ResolvedObject;
  /** System columns first, then declared stored fields in declaration order. */
  columns: ColumnInfo[];
  byName: ReadonlyMap<string, ColumnInfo>;
  formulas: ReadonlyMap<string, ResolvedField>;
}

const SYSTEM_TYPES: Record<SystemField, ValueType> = {
  id: 'text',
  version: 'integer',
  created_at: 'datetime',
  updated_at: 'datetime',
  created_by: 'text',
  updated_by: 'text',
  owner_id: 'text',
};

/** Suffix of the integer column that carries an autonumber's sequence value. */
export const AUTONUMBER_SEQ_SUFFIX = '_seq';

const cache = new WeakMap<ResolvedObject, ObjectColumns>();

/** The columns of an object, computed once per resolved object. */
export function objectColumns(object: ResolvedObject): ObjectColumns {
  const cached = cache.get(object);
  if (cached) return cached;
  const columns: ColumnInfo[] = [];
  for (const name of Object.keys(SYSTEM_TYPES) as SystemField[]) {
    if (name === 'owner_id' && !object.owner) continue;
    columns.push({ name, column: name, type: SYSTEM_TYPES[name], system: true, seqColumn: null, field: null });
  }
  const formulas = new Map<string, ResolvedField>();
  for (const [name, field] of Object.entries(object.fields)) {
    if (field.type === 'formula') {
      formulas.set(name, field);
      continue;
    }
    if (Object.hasOwn(SYSTEM_TYPES, name)) continue;
    const seqColumn = field.type === 'autonumber' ? name + AUTONUMBER_SEQ_SUFFIX : null;
    columns.push({ name, column: name, type: field.type, system: false, seqColumn, field });
  }
  const result: ObjectColumns = {
    object,
    columns,
    byName: new Map(columns.map((c) => [c.name, c])),
    formulas,
  };
  cache.set(object, result);
  return result;
}
