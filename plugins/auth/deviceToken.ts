import { signSessionToken } from './sessionAnswer.ts';

/** The engine path that hands a device its token. */
export const DEVICE_TOKEN_PATH = '/device/token';

/** Engine paths of the device grant whose OAuth error answers are passed through unchanged. */
export const DEVICE_GRANT_PATHS: ReadonlySet<string> = new Set(['/device/code', DEVICE_TOKEN_PATH]);

/**
 * The engine hands a device the bare session token, which our bearer check refuses (only signed
 * tokens are credentials). Sign it as the engine signs the tokens of sign-in.
 */
export async function signDeviceToken(response: Response, secret: string): Promise<Response> {
  if (response.status !== 200) return response;
  const body = (await response.clone().json().catch(() => null)) as { access_token?: unknown } | null;
  if (!body || typeof body.access_token !== 'string') return response;
  const token = body.access_token;
  const signed = signSessionToken(token, secret);
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return new Response(JSON.stringify({ ...body, access_token: signed }), { status: 200, headers });
}
