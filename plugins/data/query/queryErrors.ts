import { codedError } from '../../../kernel/errors.ts';
import type { CodedError } from '../../../kernel/errors.ts';

export interface QueryIssue {
  /** Where in the query, e.g. `where.$or[1].status.$in`. */
  path: string;
  message: string;
  /** The size limit the query went over (queryLimits.ts), and its value. */
  limit?: string;
  max?: number;
}

/** Collects every problem of a query so the client hears about all of them at once. */
export class QueryIssues {
  readonly list: QueryIssue[] = [];

  add(path: string, message: string): void {
    this.list.push({ path, message });
  }

  /** A size limit (queryLimits.ts) exceeded: the entry names it, so a client can tell what to shrink. */
  over(path: string, limit: string, max: number, message: string): void {
    this.list.push({ path, message, limit, max });
  }

  get empty(): boolean {
    return this.list.length === 0;
  }

  /** Throws VALIDATION_ERROR with details {errors:[{path, message}]} when anything was collected. */
  throwIfAny(): void {
    if (this.list.length > 0) throw queryError(this.list);
  }
}

export function queryError(errors: QueryIssue[]): CodedError {
  const first = errors[0]!;
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  return codedError('VALIDATION_ERROR', { summary: `${first.path}: ${first.message}${more}`, errors });
}

/** Appends a key to a path: `where` + `status` -> `where.status`; array indexes use brackets. */
export function pathJoin(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  return base ? `${base}.${key}` : key;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Short, safe rendering of a client value for messages. */
export function show(value: unknown): string {
  const text = typeof value === 'string' ? `'${value.slice(0, 60)}'` : rendered(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** JSON text of a value; a value too deeply nested to render (a stack overflow) is named by its kind. */
function rendered(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return Array.isArray(value) ? 'a deeply nested array' : 'a deeply nested object';
  }
}
