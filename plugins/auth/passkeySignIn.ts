import type { EngineUser } from './authEngine.ts';
import { toAuthUser } from './userView.ts';

/** The engine path that ends a passkey sign-in. */
export const PASSKEY_SIGN_IN_PATH = '/passkey/verify-authentication';

/**
 * The engine answers a passkey sign-in with its session record (the bare, unsigned session token
 * among it) and its user row. Answer as `POST /auth/sign-in` does: the signed bearer token and our
 * view of the user. Headers (the session cookie, `set-auth-token`) stay as they are.
 */
export async function passkeySignInAnswer(response: Response): Promise<Response> {
  if (response.status !== 200) return response;
  const token = response.headers.get('set-auth-token');
  const body = (await response.clone().json().catch(() => null)) as { user?: EngineUser } | null;
  if (!token || !body?.user) throw new Error('the auth engine issued no bearer token for a passkey sign-in');
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  headers.set('content-type', 'application/json');
  return new Response(JSON.stringify({ token, user: toAuthUser(body.user) }), { status: 200, headers });
}
