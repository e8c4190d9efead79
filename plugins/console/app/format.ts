import type { FieldDoc } from './catalog.ts';

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
const number = new Intl.NumberFormat();

/** A value as a cell shows it, by the field's type; dates in the user's time zone. */
export function formatValue(value: unknown, field: FieldDoc | undefined, name: string): string {
  if (value === null || value === undefined || value === '') return '';
  const type = field?.type ?? (name.endsWith('_at') ? 'datetime' : 'text');
  switch (type) {
    case 'boolean':
      return value === true || value === 1 ? 'Yes' : 'No';
    case 'datetime': {
      const d = new Date(String(value));
      return Number.isNaN(d.getTime()) ? String(value) : dateTime.format(d);
    }
    case 'date': {
      const d = new Date(`${String(value).slice(0, 10)}T00:00:00Z`);
      return Number.isNaN(d.getTime()) ? String(value) : dateOnly.format(d);
    }
    case 'integer':
    case 'number':
      return typeof value === 'number' ? number.format(value) : String(value);
    case 'currency':
      return typeof value === 'number' ? number.format(value) : String(value);
    case 'percent':
      return typeof value === 'number' ? `${number.format(value)} %` : String(value);
    case 'select': {
      const option = field?.options?.find((o) => o.value === value);
      return option?.label ?? String(value);
    }
    case 'multiselect':
      return Array.isArray(value) ? value.map((v) => field?.options?.find((o) => o.value === v)?.label ?? String(v)).join(', ') : String(value);
    case 'json':
      return JSON.stringify(value);
    default:
      return String(value);
  }
}

/** Operators the filter builder offers for a field type (those of the structured query). */
export function operatorsFor(type: string): Array<{ op: string; label: string }> {
  const empty = [{ op: '$null', label: 'is empty' }, { op: '$notnull', label: 'is not empty' }];
  if (type === 'boolean') return [{ op: '$eq', label: 'is' }, ...empty];
  if (['integer', 'number', 'currency', 'percent', 'date', 'datetime', 'autonumber'].includes(type)) {
    return [{ op: '$eq', label: '=' }, { op: '$ne', label: '≠' }, { op: '$gt', label: '>' }, { op: '$gte', label: '≥' }, { op: '$lt', label: '<' }, { op: '$lte', label: '≤' }, ...empty];
  }
  if (type === 'select') return [{ op: '$eq', label: 'is' }, { op: '$ne', label: 'is not' }, ...empty];
  if (type === 'lookup') return [{ op: '$eq', label: 'is (id)' }, ...empty];
  return [{ op: '$contains', label: 'contains' }, { op: '$notContains', label: 'does not contain' }, { op: '$eq', label: 'is' }, { op: '$ne', label: 'is not' }, { op: '$startsWith', label: 'starts with' }, ...empty];
}

/** A field's value from a text input, by type (numbers as numbers, booleans as booleans). */
export function parseInput(raw: string, type: string): unknown {
  if (raw === '') return null;
  if (['integer', 'number', 'currency', 'percent'].includes(type)) {
    const n = Number(raw);
    return Number.isFinite(n) ? n : raw;
  }
  if (type === 'boolean') return raw === 'true';
  return raw;
}
