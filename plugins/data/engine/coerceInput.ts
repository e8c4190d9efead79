import type { ResolvedField, ResolvedObject } from '../../../metadata/types.ts';
import { SYSTEM_FIELDS } from '../../../metadata/types.ts';
import { jsonDepthOver, MAX_JSON_DEPTH } from '../query/queryLimits.ts';
import { jsonBytesOver, maxBytesOf, maxLengthOf } from '../../../metadata/fieldLimits.ts';

export interface FieldError {
  path: string;
  message: string;
  /** The size limit the value went over, and its value (e.g. `jsonDepth`, 64). */
  limit?: string;
  max?: number;
}

export interface Coerced {
  values: Record<string, unknown>;
  errors: FieldError[];
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^\+?[0-9][0-9 ().-]{2,31}$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** Both drivers store years 0001 to 9999; PostgreSQL has no year 0. */
function validDate(text: string): boolean {
  const m = DATE.exec(text);
  if (!m || m[1] === '0000') return false;
  const d = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not read years 0-99 as 1900-1999.
  d.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

/** numeric(18,4) on PostgreSQL: 14 digits before the decimal point. */
const CURRENCY_LIMIT = 1e14;

/** PostgreSQL refuses U+0000 in text and jsonb, so neither driver stores it. */
function hasNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (Array.isArray(value)) return value.some(hasNul);
  if (typeof value === 'object' && value !== null) return Object.entries(value).some(([k, v]) => k.includes('\u0000') || hasNul(v));
  return false;
}

/** One field's value, checked and normalized; a string result is the error message. */
function coerceValue(field: ResolvedField, value: unknown): { ok: true; value: unknown } | { ok: false; message: string; limit?: string; max?: number } {
  const fail = (message: string) => ({ ok: false as const, message });
  const ok = (v: unknown) => ({ ok: true as const, value: v });
  switch (field.type) {
    case 'text': case 'textarea': case 'email': case 'url': case 'phone': {
      if (typeof value !== 'string') return fail('must be a string');
      // The size first: nothing else reads a value over it.
      const max = maxLengthOf(field)!;
      if (value.length > max) return { ok: false, message: `must be at most ${max} characters`, limit: 'maxLength', max };
      if (value.includes('\u0000')) return fail('must not contain the NUL character (U+0000)');
      if (field.type === 'email' && !EMAIL.test(value)) return fail('must be an email address');
      if (field.type === 'phone' && !PHONE.test(value)) return fail('must be a phone number (digits, spaces, + ( ) . -)');
      if (field.type === 'url') {
        try {
          const url = new URL(value);
          if (url.protocol !== 'http:' && url.protocol !== 'https:') return fail('must be an http or https URL');
        } catch {
          return fail('must be an absolute URL');
        }
      }
      return ok(value);
    }
    case 'integer': case 'number': case 'currency': case 'percent': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return fail('must be a number');
      if (field.type === 'integer' && !Number.isSafeInteger(value)) return fail('must be a whole number');
      if (field.type === 'currency' && Math.abs(value) >= CURRENCY_LIMIT) return fail(`must be less than ${CURRENCY_LIMIT} in absolute value`);
      if (field.min !== undefined && value < field.min) return fail(`must be at least ${field.min}`);
      if (field.max !== undefined && value > field.max) return fail(`must be at most ${field.max}`);
      if (field.scale !== undefined && Number(value.toFixed(field.scale)) !== value) return fail(`must have at most ${field.scale} digit${field.scale === 1 ? '' : 's'} after the decimal point`);
      return ok(value);
    }
    case 'boolean':
      return typeof value === 'boolean' ? ok(value) : fail('must be true or false');
    case 'date':
      return typeof value === 'string' && validDate(value) ? ok(value) : fail('must be a date YYYY-MM-DD');
    case 'datetime': {
      const iso = typeof value === 'string' && DATETIME.test(value) && !Number.isNaN(Date.parse(value)) ? new Date(value).toISOString() : null;
      if (iso === null) return fail('must be an ISO 8601 date-time with a time zone, e.g. 2026-01-31T09:30:00Z');
      return /^\d{4}-/.test(iso) && !iso.startsWith('0000') ? ok(iso) : fail('must be between the years 0001 and 9999 (UTC)');
    }
    case 'select':
      return typeof value === 'string' && field.optionValues?.includes(value) ? ok(value) : fail(`must be one of ${(field.optionValues ?? []).join(', ')}`);
    case 'multiselect': {
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || !field.optionValues?.includes(v))) {
        return fail(`must be an array of values from ${(field.optionValues ?? []).join(', ')}`);
      }
      return ok([...new Set(value as string[])]);
    }
    case 'lookup':
      return typeof value === 'string' && value.length > 0 && value.length <= 64 && !value.includes('\u0000') ? ok(value) : fail(`must be the id of a ${field.reference} record`);
    case 'json':
      // Checked without recursion first: hasNul (and the drivers) recurse.
      if (jsonDepthOver(value, MAX_JSON_DEPTH)) return { ok: false, message: `must nest at most ${MAX_JSON_DEPTH} levels of arrays and objects`, limit: 'jsonDepth', max: MAX_JSON_DEPTH };
      if (jsonBytesOver(value, maxBytesOf(field)!)) return { ok: false, message: `must be at most ${maxBytesOf(field)} bytes as JSON text`, limit: 'maxBytes', max: maxBytesOf(field)! };
      return hasNul(value) ? fail('must not contain the NUL character (U+0000)') : ok(value);
    default:
      return fail('is computed and cannot be written');
  }
}

/**
 * Checks a write's input against the object's fields. `create` applies defaults and requires
 * required fields; `update` checks only what is sent. System, formula, autonumber and read-only
 * fields are refused unless `system` is set (engine work); `trusted` read-only fields are accepted.
 */
export function coerceInput(
  object: ResolvedObject, input: Record<string, unknown>, mode: 'create' | 'update', system = false, trusted: readonly string[] = [],
): Coerced {
  const values: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  for (const [key, value] of Object.entries(input)) {
    if ((SYSTEM_FIELDS as readonly string[]).includes(key)) {
      if (system && key === 'owner_id' && object.owner) values[key] = value;
      else errors.push({ path: key, message: 'is set by the server and cannot be written' });
      continue;
    }
    const field = object.fields[key];
    if (!field) {
      errors.push({ path: key, message: `is not a field of ${object.name}` });
      continue;
    }
    if (field.type === 'formula' || field.type === 'autonumber' || (field.readonly && !system && !trusted.includes(key))) {
      errors.push({ path: key, message: 'is read-only' });
      continue;
    }
    if (value === null || value === undefined) {
      if (field.required) errors.push({ path: key, message: 'is required' });
      else values[key] = null;
      continue;
    }
    const result = coerceValue(field, value);
    if (result.ok) {
      if (field.required && result.value === '') errors.push({ path: key, message: 'is required' });
      else values[key] = result.value;
    } else errors.push(result.limit ? { path: key, message: result.message, limit: result.limit, max: result.max! } : { path: key, message: result.message });
  }
  if (mode === 'create') {
    for (const [name, field] of Object.entries(object.fields)) {
      if (Object.hasOwn(input, name) || field.type === 'formula' || field.type === 'autonumber') continue;
      // A default of an array or object is copied for each record; a plain value is as it is.
      if (field.default !== undefined) values[name] = typeof field.default === 'object' && field.default !== null ? structuredClone(field.default) : field.default;
      else if (field.required) errors.push({ path: name, message: 'is required' });
    }
  }
  return { values, errors };
}
