import type { ValueType } from '../sql/objectColumns.ts';
import { toIsoDateTime } from '../sql/codec.ts';

/** Which operators each type accepts, and what a value of the type looks like in a filter. */
export type TypeFamily = 'text' | 'number' | 'boolean' | 'date' | 'datetime' | 'multiselect' | 'json';

export function familyOf(type: ValueType): TypeFamily {
  switch (type) {
    case 'integer':
    case 'number':
    case 'currency':
    case 'percent':
      return 'number';
    case 'boolean':
    case 'date':
    case 'datetime':
    case 'multiselect':
    case 'json':
      return type;
    default:
      return 'text';
  }
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

export type Checked = { ok: true; value: unknown } | { ok: false; message: string };

/** Checks a filter value against a column type and puts it in the form the column compares with. */
export function checkValue(type: ValueType, value: unknown): Checked {
  switch (familyOf(type)) {
    case 'text':
    case 'multiselect':
      if (typeof value !== 'string') return bad(type, 'a string', value);
      // SQLite's LIKE stops at NUL and PostgreSQL refuses it: both drivers must answer the same.
      return value.includes('\u0000') ? { ok: false, message: 'text values cannot contain the NUL character' } : { ok: true, value };
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) return bad(type, 'a number', value);
      // A fraction or an unsafe integer cannot be bound against an integer column on every driver.
      if (type === 'integer' && !Number.isSafeInteger(value)) return bad(type, 'a whole number', value);
      return { ok: true, value };
    case 'boolean':
      return typeof value === 'boolean' ? { ok: true, value } : bad(type, 'true or false', value);
    case 'date': {
      const m = typeof value === 'string' ? DATE.exec(value) : null;
      if (m && Number(m[1]) >= 1 && validDay(Number(m[1]), Number(m[2]), Number(m[3]))) return { ok: true, value };
      return bad(type, "a date 'YYYY-MM-DD'", value);
    }
    case 'datetime': {
      const m = typeof value === 'string' ? DATETIME.exec(value) : null;
      if (!m) return bad(type, "an ISO 8601 date-time such as '2026-03-01T09:30:00Z'", value);
      // A date-time without a zone is read as UTC, never as the server's local time.
      const text = value as string;
      const withZone = text.length > 10 && !m[1] ? `${text.replace(' ', 'T')}Z` : text.replace(' ', 'T');
      const iso = toIsoDateTime(withZone);
      const year = Number(iso.slice(0, 4));
      return Number.isNaN(Date.parse(iso)) || !(year >= 1 && year <= 9999) ? bad(type, 'a valid date-time (years 0001 to 9999)', value) : { ok: true, value: iso };
    }
    case 'json':
      return { ok: false, message: 'json fields can only be tested with $null or $exists' };
  }
}

/** Converts a value computed by a CEL expression to the column's filter form. */
export function fromComputed(type: ValueType, value: unknown): Checked {
  if (value instanceof Date) {
    if (type === 'date') return { ok: true, value: value.toISOString().slice(0, 10) };
    if (type === 'datetime') return { ok: true, value: value.toISOString() };
    if (familyOf(type) === 'text') return { ok: true, value: value.toISOString() };
    return { ok: false, message: `a timestamp cannot be compared with a ${type} field` };
  }
  if (typeof value === 'bigint') return checkValue(type, Number(value));
  if (type === 'datetime' && typeof value === 'string' && DATE.test(value)) return { ok: true, value: `${value}T00:00:00.000Z` };
  return checkValue(type, value);
}

function validDay(y: number, m: number, d: number): boolean {
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

function bad(type: ValueType, expected: string, value: unknown): Checked {
  const shown = typeof value === 'string' ? `'${value.length > 40 ? value.slice(0, 37) + '...' : value}'` : Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value;
  return { ok: false, message: `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type} field compares with ${expected}, not ${shown}` };
}
