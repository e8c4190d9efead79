import { codedError, type CodedError } from '../../../kernel/errors.ts';
import type { ResolvedObject } from '../../../metadata/types.ts';

/** A unique-constraint violation from either driver, as a field error; null for anything else. */
export function constraintError(error: unknown, object: ResolvedObject): CodedError | null {
  const e = error as { code?: string; message?: string; detail?: string };
  let columns: string[] = [];
  if (e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    columns = (e.message?.split('failed:')[1] ?? '').split(',').map((c) => c.trim().split('.').pop() ?? '').filter(Boolean);
  } else if (e.code === '23505') {
    columns = (/Key \(([^)]*)\)/.exec(e.detail ?? '')?.[1] ?? '').split(',').map((c) => c.trim().replace(/"/g, '')).filter(Boolean);
  } else return null;
  const fields = columns.filter((c) => object.fields[c] || c === 'id');
  const errors = (fields.length ? fields : ['(record)']).map((path) => ({ path, message: 'must be unique: another record already has this value' }));
  return codedError('VALIDATION_ERROR', { summary: errors.map((x) => `${x.path} ${x.message}`).join('; '), errors });
}
