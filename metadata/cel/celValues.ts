import type { FieldType, FormulaType } from '../types.ts';

/** How an input value converts: the field type, or a formula's result type. */
export type ValueKind = Exclude<FieldType, 'formula'> | FormulaType;

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const TEXT_KINDS = new Set<ValueKind>(['text', 'textarea', 'email', 'url', 'phone', 'select', 'lookup', 'autonumber']);

/**
 * API value -> CEL value. Returns undefined for null or unusable input: the key is then left out
 * of `record`, so reading it fails and the null rule of compileExpression applies.
 */
export function toCelValue(kind: ValueKind, value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  if (kind === 'lookup' && typeof value === 'object' && typeof (value as { id?: unknown }).id === 'string') return (value as { id: string }).id;
  if (TEXT_KINDS.has(kind)) return typeof value === 'string' ? value : typeof value === 'object' ? undefined : String(value);
  switch (kind) {
    case 'integer': {
      if (typeof value === 'bigint') return value;
      const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
      return Number.isFinite(n) ? BigInt(Math.trunc(n)) : undefined;
    }
    case 'number': case 'currency': case 'percent': {
      const n = typeof value === 'number' ? value : typeof value === 'bigint' ? Number(value) : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
      return Number.isNaN(n) ? undefined : n;
    }
    case 'boolean':
      if (typeof value === 'boolean') return value;
      if (value === 1 || value === 0) return value === 1;
      return value === 'true' ? true : value === 'false' ? false : undefined;
    case 'date': case 'datetime':
      return toDate(value);
    case 'multiselect': {
      const list = typeof value === 'string' && value.startsWith('[') ? safeJson(value) : value;
      return Array.isArray(list) ? list.filter((v): v is string => typeof v === 'string') : undefined;
    }
    case 'json':
      return value;
    default:
      return undefined;
  }
}

function toDate(value: unknown): Date | undefined {
  let date: Date;
  if (value instanceof Date) date = value;
  else if (typeof value === 'string') date = new Date(DATE_ONLY.test(value) ? `${value}T00:00:00.000Z` : value);
  else if (typeof value === 'number') date = new Date(value);
  else return undefined;
  return Number.isNaN(date.getTime()) ? undefined : date;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** CEL result -> plain JS, shaped like the API returns values of the expected type (null when it is not one). */
export function fromCelValue(value: unknown, expected?: FormulaType): unknown {
  if (value === null || value === undefined) return null;
  switch (expected) {
    case 'date': return value instanceof Date ? value.toISOString().slice(0, 10) : null;
    case 'datetime': return value instanceof Date ? value.toISOString() : null;
    case 'boolean': return typeof value === 'boolean' ? value : null;
    case 'integer': return typeof value === 'bigint' ? Number(value) : typeof value === 'number' ? Math.trunc(value) : null;
    case 'number': return typeof value === 'bigint' || typeof value === 'number' ? Number(value) : null;
    case 'text': return typeof value === 'string' ? value : JSON.stringify(plain(value));
    default: return plain(value);
  }
}

/** Lists, maps, ints and timestamps as JSON-friendly values. */
function plain(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(plain);
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(k), plain(v)]));
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (typeof value === 'object') {
    // Plain objects come from json fields; anything else (a CEL type value) renders as its name.
    if (value.constructor === Object) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
    return String(value);
  }
  return value;
}
