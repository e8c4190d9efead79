import { codedError } from '../../kernel/errors.ts';
import type { EngineUser } from './authEngine.ts';
import { isPlaceholderEmail, normalizePhone, PLACEHOLDER_DOMAIN } from './import/normalizeRow.ts';
import { hashPhoneCode } from './phoneCodeHash.ts';
import { toAuthUser } from './userView.ts';

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
 * The request with its `phoneNumber` in E.164 form, and its `code` or `otp` hashed as stored (spaces, dashes, dots and parentheses
 * removed), and that number. Anything else is refused before the engine sees it: the engine
 * would store and match numbers as typed, so `+49 151...` and `+49151...` would be two accounts.
 */
export async function normalizePhoneRequest(request: Request, secret: string): Promise<{ request: Request; phone: string | null }> {
  const type = request.headers.get('content-type') ?? '';
  // Another body type would pass by the normalisation, the code limits and the code hashing.
  if (!/^application\/json\s*(;|$)/i.test(type)) throw codedError('UNSUPPORTED_MEDIA_TYPE', { contentType: type.split(';')[0]!.trim().slice(0, 100) || 'none' });
  const body = (await request.clone().json().catch(() => null)) as Record<string, unknown> | null;
  if (!body || typeof body !== 'object' || Array.isArray(body) || !('phoneNumber' in body)) return { request, phone: null };
  const raw = body.phoneNumber;
  if (typeof raw !== 'string') throw codedError('PHONE_NUMBER_INVALID', { reason: 'phoneNumber must be a string' });
  const phone = normalizePhone(raw.slice(0, 40));
  if (!phone) throw codedError('PHONE_NUMBER_INVALID', { reason: 'it is not a + followed by 7 to 15 digits' });
  const headers = new Headers(request.headers);
  headers.delete('content-length');
  const next: Record<string, unknown> = { ...body, phoneNumber: phone };
  // Codes are stored hashed (phoneCodeHash.ts): the engine compares the hash of what was typed.
  for (const field of ['code', 'otp'] as const) {
    if (typeof next[field] === 'string') next[field] = hashPhoneCode(secret, (next[field] as string).trim().slice(0, 20));
  }
  return { request: new Request(request.url, { method: request.method, headers, body: JSON.stringify(next) }), phone };
}

/**
 * The engine answers a phone sign-in or verification with the bare, unsigned session token and
 * its user row. Answer as `POST /auth/sign-in` does: the signed bearer token (the one
 * `set-auth-token` carries) and our view of the user. A verification that opens no session
 * (`disableSession`, `updatePhoneNumber`) answers `token: null`.
 */
export async function phoneSignInAnswer(response: Response, path: string): Promise<Response> {
  if (response.status !== 200 || (path !== PHONE_PATHS.signIn && path !== PHONE_PATHS.verify)) return response;
  const body = (await response.clone().json().catch(() => null)) as { user?: EngineUser; token?: string | null } | null;
  if (!body?.user) return response;
  const token = body.token ? response.headers.get('set-auth-token') : null;
  // Adding a number to the signed-in account (updatePhoneNumber) opens no new session.
  if (path === PHONE_PATHS.signIn && !token) throw new Error('the auth engine issued no bearer token for a phone sign-in');
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  headers.set('content-type', 'application/json');
  const answer = path === PHONE_PATHS.verify ? { status: true, token, user: toAuthUser(body.user) } : { token, user: toAuthUser(body.user) };
  return new Response(JSON.stringify(answer), { status: 200, headers });
}

/** Engine paths that take an email a user chooses. */
const EMAIL_CHOOSING_PATHS: ReadonlySet<string> = new Set(['/sign-up/email', '/change-email']);

/**
 * Refuse a chosen email in the placeholder domain of phone-only accounts: taking
 * `<digits>@phone.invalid` first would block that number's phone sign-up.
 */
export async function refusePlaceholderEmail(request: Request, path: string): Promise<void> {
  if (!EMAIL_CHOOSING_PATHS.has(path)) return;
  const body = (await request.clone().json().catch(() => null)) as { email?: unknown; newEmail?: unknown } | null;
  for (const value of [body?.email, body?.newEmail]) {
    if (typeof value === 'string' && isPlaceholderEmail(value.trim().toLowerCase())) {
      throw codedError('VALIDATION_ERROR', { summary: `addresses @${PLACEHOLDER_DOMAIN} are reserved for phone-only accounts` });
    }
  }
}
