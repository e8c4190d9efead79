import { codedError } from '../../kernel/errors.ts';
import { normalizePhone } from './import/normalizeRow.ts';

/** Engine paths of phone sign-in, below AUTH_BASE_PATH. */
export const PHONE_PATHS = {
  sendCode: '/phone-number/send-otp',
  verify: '/phone-number/verify',
  signIn: '/sign-in/phone-number',
  requestReset: '/phone-number/request-password-reset',
  reset: '/phone-number/reset-password',
} as const;

/** Paths that text a code: cooldown, hourly cap and per-IP limits apply. */
export const PHONE_CODE_PATHS: ReadonlySet<string> = new Set([PHONE_PATHS.sendCode, PHONE_PATHS.requestReset]);

const ALL: ReadonlySet<string> = new Set(Object.values(PHONE_PATHS));

export const isPhonePath = (path: string) => ALL.has(path);

/**
 * The request with its `phoneNumber` in E.164 form (spaces, dashes, dots and parentheses
 * removed), and that number. Anything else is refused before the engine sees it: the engine
 * would store and match numbers as typed, so `+49 151...` and `+49151...` would be two accounts.
 */
export async function normalizePhoneRequest(request: Request): Promise<{ request: Request; phone: string | null }> {
  if (!(request.headers.get('content-type') ?? '').includes('json')) return { request, phone: null };
  const body = (await request.clone().json().catch(() => null)) as Record<string, unknown> | null;
  if (!body || typeof body !== 'object' || Array.isArray(body) || !('phoneNumber' in body)) return { request, phone: null };
  const raw = body.phoneNumber;
  if (typeof raw !== 'string') throw codedError('PHONE_NUMBER_INVALID', { reason: 'phoneNumber must be a string' });
  const phone = normalizePhone(raw.slice(0, 40));
  if (!phone) throw codedError('PHONE_NUMBER_INVALID', { reason: 'it is not a + followed by 7 to 15 digits' });
  const headers = new Headers(request.headers);
  headers.delete('content-length');
  return { request: new Request(request.url, { method: request.method, headers, body: JSON.stringify({ ...body, phoneNumber: phone }) }), phone };
}
