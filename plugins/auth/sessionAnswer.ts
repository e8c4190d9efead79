import { createHmac } from 'node:crypto';
import type { EngineUser } from './authEngine.ts';
import { readCookie } from './credentials.ts';
import { truthy } from './userView.ts';

/** The engine path that changes the signed-in user's password. */
export const CHANGE_PASSWORD_PATH = '/change-password';

/** A bare session token signed as the engine signs the tokens of sign-in (`token.signature`): a bearer credential. */
export function signSessionToken(token: string, secret: string): string {
  return `${token}.${createHmac('sha256', secret).update(token).digest('base64')}`;
}

/** The signed session token a request authenticated with: its bearer token, else its session cookie. */
export function requestSessionToken(request: Request, sessionCookie: string): string | null {
  const bearer = /^bearer\s+(\S+)$/i.exec(request.headers.get('authorization') ?? '');
  if (bearer && bearer[1]!.includes('.')) return bearer[1]!;
  const cookie = readCookie(request.headers.get('cookie') ?? undefined, sessionCookie);
  if (!cookie) return null;
  try {
    return decodeURIComponent(cookie);
  } catch {
    return null;
  }
}

export interface SessionAnswerInput {
  path: string;
  secret: string;
  /** The signed token of the session the request was made in, if any. */
  current: string | null;
  /** The user as stored now. */
  reload(id: string): Promise<EngineUser | null>;
}

/**
 * Every engine answer that opens or keeps a session (`{ token, user }`: two-factor and backup-code
 * verification, sign-up, a sign-in link, a password change) hands out a token that works as a
 * bearer credential: the engine's bare session token is refused as one (only signed tokens are),
 * so it is signed; a password change that kept the session answers the session's own token, and
 * the user as stored after the change (`must_change_password` cleared).
 */
export async function sessionAnswer(response: Response, input: SessionAnswerInput): Promise<Response> {
  if (response.status !== 200 || !(response.headers.get('content-type') ?? '').includes('json')) return response;
  const body = (await response.clone().json().catch(() => null)) as { token?: unknown; user?: EngineUser } | null;
  if (!body || typeof body !== 'object' || !('token' in body) || typeof body.user?.id !== 'string') return response;
  let token = body.token;
  if (typeof token === 'string' && !token.includes('.')) token = signSessionToken(token, input.secret);
  let user = body.user;
  if (input.path === CHANGE_PASSWORD_PATH) {
    if (token === null) token = input.current;
    const stored = await input.reload(user.id);
    if (stored) user = { ...user, must_change_password: truthy(stored.must_change_password), updatedAt: stored.updatedAt };
  }
  if (token === body.token && user === body.user) return response;
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return new Response(JSON.stringify({ ...body, token, user }), { status: 200, headers });
}
