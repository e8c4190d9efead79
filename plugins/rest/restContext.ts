import type { FastifyRequest } from 'fastify';
import { codedError } from '../../kernel/errors.ts';

/** Comma list from a query-string value (`a,b` or repeated parameters). */
export function list(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  const parts = (Array.isArray(value) ? value : [value]).flatMap((v) => String(v).split(','));
  return parts.map((p) => p.trim()).filter((p) => p.length > 0);
}

/**
 * The version a write expects, from `expectedVersion` (body or query) or `If-Match`
 * (`3`, `"3"` or `W/"3"`). Both present and different is a 400.
 */
export function expectedVersion(request: FastifyRequest, fromBody: unknown): number | undefined {
  const header = request.headers['if-match'];
  let fromHeader: number | undefined;
  if (typeof header === 'string' && header.trim() !== '' && header.trim() !== '*') {
    const m = /^(?:W\/)?"?(\d{1,15})"?$/.exec(header.trim());
    if (!m) throw codedError('VALIDATION_ERROR', { summary: 'If-Match must be a record version such as "3"', errors: [{ path: 'headers/if-match', message: 'must be a record version' }] });
    fromHeader = Number(m[1]);
  }
  let given: number | undefined;
  if (fromBody !== undefined) {
    const n = typeof fromBody === 'string' && /^\d{1,15}$/.test(fromBody) ? Number(fromBody) : fromBody;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1) {
      throw codedError('VALIDATION_ERROR', { summary: 'expectedVersion must be a positive integer', errors: [{ path: 'expectedVersion', message: 'must be a positive integer' }] });
    }
    given = n;
  }
  if (given !== undefined && fromHeader !== undefined && given !== fromHeader) {
    throw codedError('VALIDATION_ERROR', { summary: `If-Match (${fromHeader}) and expectedVersion (${given}) disagree`, errors: [{ path: 'expectedVersion', message: 'disagrees with If-Match' }] });
  }
  return given ?? fromHeader;
}
