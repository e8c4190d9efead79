import type { ResolvedObject } from '../../../metadata/types.ts';
import type { Dialect } from './dialect.ts';
import type { ValueType } from './objectColumns.ts';
import { objectColumns } from './objectColumns.ts';

/**
 * Record <-> row conversion. API values are the same on both drivers (see the table in
 * columnTypes.ts); only the stored form differs.
 */

/** API value -> bound parameter for a column of this type. */
export function encodeValue(type: ValueType, value: unknown, dialect: Dialect): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'boolean':
      return dialect === 'sqlite' ? (value ? 1 : 0) : Boolean(value);
    case 'integer':
    case 'number':
    case 'percent':
      return Number(value);
    case 'currency':
      return roundCurrency(Number(value));
    case 'date':
      return toDateString(value);
    case 'datetime':
      return toIsoDateTime(value);
    case 'multiselect':
    case 'json':
      return JSON.stringify(value);
    default:
      return value instanceof Date ? value.toISOString() : String(value);
  }
}

/** What a driver returned for a column of this type -> API value. */
export function decodeValue(type: ValueType, raw: unknown, dialect: Dialect): unknown {
  if (raw === null || raw === undefined) return null;
  switch (type) {
    case 'boolean':
      return typeof raw === 'boolean' ? raw : Number(raw) !== 0;
    case 'integer':
    case 'number':
    case 'percent':
      return Number(raw);
    case 'currency':
      return roundCurrency(Number(raw));
    case 'date':
      return toDateString(raw);
    case 'datetime':
      return toIsoDateTime(raw);
    case 'multiselect':
    case 'json':
      // jsonb arrives parsed from pg; SQLite keeps the JSON text.
      return dialect === 'sqlite' && typeof raw === 'string' ? JSON.parse(raw) : raw;
    default:
      return typeof raw === 'string' ? raw : String(raw);
  }
}

/** Encodes the stored fields present in `record` (unknown keys and formulas are left out). */
export function recordToRow(object: ResolvedObject, record: Record<string, unknown>, dialect: Dialect): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const column of objectColumns(object).columns) {
    if (!Object.hasOwn(record, column.name)) continue;
    row[column.column] = encodeValue(column.type, record[column.name], dialect);
  }
  return row;
}

/** Decodes the columns present in `row` into an API record (sequence columns stay internal). */
export function rowToRecord(object: ResolvedObject, row: Record<string, unknown>, dialect: Dialect): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const column of objectColumns(object).columns) {
    if (!Object.hasOwn(row, column.column)) continue;
    record[column.name] = decodeValue(column.type, row[column.column], dialect);
  }
  return record;
}

/** `LEAD-{0000}` with 42 -> `LEAD-0042`; a format without a placeholder gets the number appended. */
export function formatAutonumber(format: string | undefined, sequence: number): string {
  const pattern = format ?? '{0}';
  let replaced = false;
  const text = pattern.replace(/\{(0+)\}/g, (_, zeros: string) => {
    replaced = true;
    return String(sequence).padStart(zeros.length, '0');
  });
  return replaced ? text : text + String(sequence);
}

function roundCurrency(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}

/** 'YYYY-MM-DD' from a date string, an ISO datetime (its UTC day) or a Date. */
export function toDateString(value: unknown): string {
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  const text = String(value);
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return text;
  const parsed = new Date(text);
  return Number.isNaN(parsed.getTime()) ? text : parsed.toISOString().slice(0, 10);
}

// Days up to 28 exist in every month, so such text round-trips through Date unchanged.
const CANONICAL_DATETIME = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|1\d|2[0-8])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/;

/** Canonical UTC ISO string with milliseconds: the one text form, so SQLite compares it in time order. */
export function toIsoDateTime(value: unknown): string {
  // Already canonical (how SQLite stores it): parsing and printing it again gives the same text.
  if (typeof value === 'string' && value.length === 24 && CANONICAL_DATETIME.test(value)) return value;
  const parsed = value instanceof Date ? value : new Date(String(value));
  if (Number.isNaN(parsed.getTime())) return String(value);
  return parsed.toISOString();
}
