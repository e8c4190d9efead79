import { codedError } from '../../kernel/errors.ts';

export function badRequest(path: string, message: string): never {
  throw codedError('VALIDATION_ERROR', { summary: `${path} ${message}`, errors: [{ path, message }] });
}
