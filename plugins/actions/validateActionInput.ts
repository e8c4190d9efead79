import type { ActionInputField, ResolvedAction } from '../../metadata/actionTypes.ts';
import { DEFAULT_MAX_LENGTH, MAX_ID_LENGTH } from './inputSchema.ts';

export interface InputProblem {
  path: string;
  message: string;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function validDate(value: string): boolean {
  const date = new Date(`${value}T00:00:00.000Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

function validUrl(value: string): boolean {
  try {
    return Boolean(new URL(value).protocol);
  } catch {
    return false;
  }
}

/** Why a value does not fit an input, or null. */
function fieldProblem(field: ActionInputField, value: unknown): string | null {
  const isText = typeof value === 'string';
  switch (field.type) {
    case 'text': case 'textarea': case 'phone': case 'email': case 'url': {
      if (!isText) return 'must be string';
      const max = field.maxLength ?? (field.type === 'email' ? 320 : field.type === 'url' ? 2048 : DEFAULT_MAX_LENGTH);
      if (value.length > max) return `must NOT have more than ${max} characters`;
      if (field.type === 'email' && !EMAIL.test(value)) return 'must match format "email"';
      if (field.type === 'url' && !validUrl(value)) return 'must match format "uri"';
      return null;
    }
    case 'integer': case 'number': case 'currency': case 'percent': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return field.type === 'integer' ? 'must be integer' : 'must be number';
      if (field.type === 'integer' && !Number.isInteger(value)) return 'must be integer';
      if (field.min !== undefined && value < field.min) return `must be >= ${field.min}`;
      if (field.max !== undefined && value > field.max) return `must be <= ${field.max}`;
      return null;
    }
    case 'boolean':
      return typeof value === 'boolean' ? null : 'must be boolean';
    case 'date':
      return isText && DATE.test(value) && validDate(value) ? null : 'must match format "date"';
    case 'datetime':
      return isText && DATETIME.test(value) && !Number.isNaN(new Date(value).getTime()) ? null : 'must match format "date-time"';
    case 'select':
      return isText && field.options!.includes(value) ? null : `must be equal to one of the allowed values: ${field.options!.join(', ')}`;
    case 'multiselect': {
      if (!Array.isArray(value)) return 'must be array';
      if (value.some((v) => typeof v !== 'string' || !field.options!.includes(v))) return `must hold only allowed values: ${field.options!.join(', ')}`;
      return new Set(value).size === value.length ? null : 'must NOT have duplicate items';
    }
    case 'lookup':
      return isText && value.length >= 1 && value.length <= MAX_ID_LENGTH ? null : `must be a record id (1 to ${MAX_ID_LENGTH} characters)`;
    case 'json':
      return null;
  }
}

/**
 * Checks a body against an action's declaration, as the route's JSON Schema does: one problem per
 * field, unknown keys refused, `recordId` required on record actions. Pure: `run` of the registry
 * uses it for callers that do not come through HTTP.
 */
export function validateActionInput(action: ResolvedAction, body: unknown): { ok: true; input: Record<string, unknown>; recordId: string | null } | { ok: false; problems: InputProblem[] } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { ok: false, problems: [{ path: 'body', message: 'must be object' }] };
  const problems: InputProblem[] = [];
  const values = body as Record<string, unknown>;
  for (const key of Object.keys(values)) {
    if (key === 'recordId' && action.object) continue;
    if (!Object.prototype.hasOwnProperty.call(action.input, key)) problems.push({ path: `body/${key.slice(0, 100)}`, message: 'must NOT have additional properties' });
  }
  let recordId: string | null = null;
  if (action.object) {
    const id = values.recordId;
    if (id === undefined) problems.push({ path: 'body/recordId', message: `is required: the id of the ${action.object} record` });
    else if (typeof id !== 'string' || id.length < 1 || id.length > MAX_ID_LENGTH) problems.push({ path: 'body/recordId', message: `must be a record id (1 to ${MAX_ID_LENGTH} characters)` });
    else recordId = id;
  }
  const input: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(action.input)) {
    const value = values[name];
    if (value === undefined) {
      if (field.required) problems.push({ path: `body/${name}`, message: 'is required' });
      continue;
    }
    const problem = fieldProblem(field, value);
    if (problem) problems.push({ path: `body/${name}`, message: problem });
    else input[name] = value;
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, input, recordId };
}
