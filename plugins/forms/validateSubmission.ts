import type { ResolvedForm, ResolvedFormField } from '../../metadata/formTypes.ts';
import { SYSTEM_FIELDS, type FieldType } from '../../metadata/types.ts';
import { maxLengthOf } from '../../metadata/fieldLimits.ts';

export interface SubmissionError {
  path: string;
  message: string;
}

export type Submission =
  | { ok: true; values: Record<string, unknown>; honeypot: boolean }
  | { ok: false; errors: SubmissionError[] };

// The same patterns as the data engine's and the page script's checks.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^\+?[0-9][0-9 ().-]{2,31}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
const TEXT_TYPES = new Set(['text', 'textarea', 'email', 'url', 'phone']);
const NUMBER_TYPES = new Set(['integer', 'number', 'currency', 'percent']);
/** Text fields without a declared maxLength are still bounded on a public form. */
export const DEFAULT_TEXT_LIMIT = 10_000;

/** A text field's bound on a form: its declared maxLength, else the smaller of the form default and its type's (metadata/fieldLimits.ts). */
export function formTextLimit(field: Pick<ResolvedFormField, 'type' | 'maxLength'>): number {
  return field.maxLength ?? Math.min(DEFAULT_TEXT_LIMIT, maxLengthOf({ type: field.type as FieldType }) ?? DEFAULT_TEXT_LIMIT);
}

const empty = (value: unknown) => value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);

function checkValue(field: ResolvedFormField, value: unknown): string | null {
  if (TEXT_TYPES.has(field.type)) {
    if (typeof value !== 'string') return 'must be text';
    if (value.length > formTextLimit(field)) return `must be at most ${formTextLimit(field)} characters`;
    if (field.type === 'email' && !EMAIL.test(value)) return 'must be an email address';
    if (field.type === 'phone' && !PHONE.test(value)) return 'must be a phone number (digits, spaces, + ( ) . -)';
    if (field.type === 'url') {
      try {
        const url = new URL(value);
        if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http or https URL';
      } catch {
        return 'must be an absolute URL';
      }
    }
    return null;
  }
  if (NUMBER_TYPES.has(field.type)) {
    if (typeof value !== 'number' || !Number.isFinite(value)) return 'must be a number';
    if (field.type === 'integer' && !Number.isSafeInteger(value)) return 'must be a whole number';
    if (field.min !== null && value < field.min) return `must be at least ${field.min}`;
    if (field.max !== null && value > field.max) return `must be at most ${field.max}`;
    return null;
  }
  switch (field.type) {
    case 'boolean': return typeof value === 'boolean' ? null : 'must be true or false';
    case 'date': return typeof value === 'string' && DATE.test(value) ? null : 'must be a date YYYY-MM-DD';
    case 'datetime': return typeof value === 'string' && DATETIME.test(value) && !Number.isNaN(Date.parse(value)) ? null : 'must be a date and time with a time zone, e.g. 2026-01-31T09:30:00Z';
    case 'select': return typeof value === 'string' && field.options!.some((o) => o.value === value) ? null : `must be one of ${field.options!.map((o) => o.value).join(', ')}`;
    case 'multiselect':
      return Array.isArray(value) && value.length <= field.options!.length && value.every((v) => typeof v === 'string' && field.options!.some((o) => o.value === v))
        ? null : `must be a list of values from ${field.options!.map((o) => o.value).join(', ')}`;
    case 'lookup': return typeof value === 'string' && value.length <= 64 ? null : `must be the id of a ${field.reference} record`;
    default: return 'cannot be set through a form';
  }
}

/**
 * Checks a submission against exactly the form's fields: a key that is not one of them (the owner
 * and system fields among them) is refused by name; every field is checked as the page checks it.
 * The honeypot input is read and dropped. Empty optional fields are left out of the values.
 */
export function validateSubmission(form: ResolvedForm, body: Record<string, unknown>): Submission {
  const errors: SubmissionError[] = [];
  const byName = new Map(form.fields.map((f) => [f.field, f]));
  for (const key of Object.keys(body)) {
    if (key === form.honeypot || byName.has(key)) continue;
    const label = key.slice(0, 64);
    if (key === 'owner_id') errors.push({ path: label, message: 'is the owner field: the server sets it, a form never does' });
    else if ((SYSTEM_FIELDS as readonly string[]).includes(key)) errors.push({ path: label, message: 'is a system field: the server sets it, a form never does' });
    else errors.push({ path: label, message: 'is not a field of this form' });
  }
  const values: Record<string, unknown> = {};
  for (const field of form.fields) {
    const value = body[field.field];
    if (empty(value)) {
      if (field.required) errors.push({ path: field.field, message: 'is required' });
      continue;
    }
    const problem = checkValue(field, value);
    if (problem) errors.push({ path: field.field, message: problem });
    else values[field.field] = value;
  }
  if (errors.length > 0) return { ok: false, errors };
  const trap = body[form.honeypot];
  return { ok: true, values, honeypot: !empty(trap) };
}
