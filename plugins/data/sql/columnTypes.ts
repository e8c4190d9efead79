import type { Dialect } from './dialect.ts';
import type { ValueType } from './objectColumns.ts';

/**
 * Column type per field type and driver. The codec (codec.ts) turns what each driver returns
 * into the same API value, so records look identical on both.
 *
 * | field type                                   | sqlite               | postgres          | API value            |
 * |----------------------------------------------|----------------------|-------------------|----------------------|
 * | text textarea email url phone select lookup  | text                 | text              | string               |
 * | integer                                      | integer              | bigint            | number               |
 * | number percent                               | real                 | double precision  | number               |
 * | currency                                     | numeric              | numeric(18,4)     | number (4 decimals)  |
 * | boolean                                      | integer 0/1          | boolean           | boolean              |
 * | date                                         | text 'YYYY-MM-DD'    | date              | 'YYYY-MM-DD'         |
 * | datetime                                     | text ISO, UTC, ms    | timestamptz       | ISO string, UTC, ms  |
 * | multiselect json                             | text (JSON)          | jsonb             | array / JSON value   |
 * | autonumber                                   | text + integer _seq  | text + bigint _seq| formatted string     |
 * | formula                                      | (not stored)         | (not stored)      | computed on read     |
 *
 * autonumber keeps the formatted value (`LEAD-0042`) in `<field>` and the integer in `<field>_seq`:
 * the text is what filters match, the integer is what sorts and allocates the next number.
 * System columns: id text primary key (uuid v7, made by the engine), version integer not null
 * default 1, created_at/updated_at as datetime, created_by/updated_by/owner_id as text.
 */
const TYPES: Record<ValueType, Record<Dialect, string>> = {
  text: { sqlite: 'text', postgres: 'text' },
  textarea: { sqlite: 'text', postgres: 'text' },
  email: { sqlite: 'text', postgres: 'text' },
  url: { sqlite: 'text', postgres: 'text' },
  phone: { sqlite: 'text', postgres: 'text' },
  select: { sqlite: 'text', postgres: 'text' },
  lookup: { sqlite: 'text', postgres: 'text' },
  integer: { sqlite: 'integer', postgres: 'bigint' },
  number: { sqlite: 'real', postgres: 'double precision' },
  percent: { sqlite: 'real', postgres: 'double precision' },
  currency: { sqlite: 'numeric', postgres: 'numeric(18,4)' },
  boolean: { sqlite: 'integer', postgres: 'boolean' },
  date: { sqlite: 'text', postgres: 'date' },
  datetime: { sqlite: 'text', postgres: 'timestamptz' },
  multiselect: { sqlite: 'text', postgres: 'jsonb' },
  json: { sqlite: 'text', postgres: 'jsonb' },
  autonumber: { sqlite: 'text', postgres: 'text' },
};

/** The integer type of an autonumber's `_seq` column. */
export function sequenceColumnType(dialect: Dialect): string {
  return dialect === 'sqlite' ? 'integer' : 'bigint';
}

export function columnType(type: ValueType, dialect: Dialect): string {
  return TYPES[type][dialect];
}

const PG_ALIASES: Record<string, string> = {
  'timestamp with time zone': 'timestamptz',
  int8: 'bigint',
  float8: 'double precision',
  bool: 'boolean',
};

/** The declared type of an existing column, in the spelling of the table above, for comparison. */
export function normalizeColumnType(raw: string, dialect: Dialect): string {
  const lower = raw.trim().toLowerCase().replace(/\s+/g, ' ');
  if (dialect === 'sqlite') return lower;
  const base = PG_ALIASES[lower] ?? lower;
  return base.replace(/^numeric\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)$/, 'numeric($1,$2)');
}
