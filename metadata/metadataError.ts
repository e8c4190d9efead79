import { codedError, type CodedError } from '../kernel/errors.ts';

/** A declaration problem: where (file and dotted path) and why. */
export interface MetadataProblem {
  path: string;
  reason: string;
}

export function metadataError(file: string, path: string, reason: string, extra: Record<string, unknown> = {}): CodedError {
  return codedError('METADATA_INVALID', { file, path: path === '' ? '(root)' : path, reason, ...extra });
}

/** `['fields', 'status', 'options', 0]` -> `fields.status.options[0]`. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}
