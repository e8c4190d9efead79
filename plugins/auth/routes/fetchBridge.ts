import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthRequestContext } from '../../../capabilities/authIdentity.ts';
import { CLIENT_IP_HEADER } from '../clientIpHeader.ts';

/** Headers that describe one hop or the old body, not the request the engine should see. */
const REQUEST_SKIP = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'expect', 'upgrade', 'te', 'trailer', 'proxy-connection', CLIENT_IP_HEADER]);
const RESPONSE_SKIP = new Set(['set-cookie', 'content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive']);

const PREFIXED = /^\/api\/v[12](?:\/environments\/[^/]+)?(\/auth(?:\/.*)?)$/;

/** The server's own origin as this client addressed it. */
export function ownOrigin(request: FastifyRequest): string {
  return `${request.protocol}://${request.host || 'localhost'}`;
}

export function requestContext(request: FastifyRequest): AuthRequestContext {
  const origin = request.headers.origin;
  return {
    environmentId: request.environmentId,
    origin: ownOrigin(request),
    clientOrigin: typeof origin === 'string' && origin !== '' ? origin : null,
    ip: request.ip,
    userAgent: typeof request.headers['user-agent'] === 'string' ? request.headers['user-agent'] : null,
    principal: request.principal,
  };
}

/**
 * A request URL (path and query) as the auth engine expects it: below /api/v1/auth, an
 * environment prefix or another API version removed (the environment was chosen already). Pure.
 */
export function authUrlOf(url: string): string {
  const q = url.indexOf('?');
  const pathname = q >= 0 ? url.slice(0, q) : url;
  const prefixed = PREFIXED.exec(pathname);
  return `${prefixed ? `/api/v1${prefixed[1]}` : pathname}${q >= 0 ? url.slice(q) : ''}`;
}

/**
 * The Fetch Request the auth engine expects: the path below /api/v1/auth (an environment prefix
 * removed: the environment was chosen already), the client's headers, the body as sent.
 */
export function toFetchRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || REQUEST_SKIP.has(name)) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, String(v));
  }
  headers.set(CLIENT_IP_HEADER, request.ip);
  const init: RequestInit = { method: request.method, headers };
  if (request.method !== 'GET' && request.method !== 'HEAD' && request.body !== undefined && request.body !== null) {
    const body = request.body;
    // fastify parsed JSON already; serializing it again gives the engine the same document.
    init.body = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  }
  return new Request(`${ownOrigin(request)}${authUrlOf(request.url)}`, init);
}

export function setCookies(reply: FastifyReply, cookies: string[]): void {
  if (cookies.length > 0) reply.header('set-cookie', cookies);
}

/** Send the engine's answer back as it is: status, headers (every Set-Cookie), body. */
export async function sendResponse(reply: FastifyReply, response: Response): Promise<FastifyReply> {
  reply.code(response.status);
  for (const [name, value] of response.headers) if (!RESPONSE_SKIP.has(name)) reply.header(name, value);
  setCookies(reply, response.headers.getSetCookie());
  const body = Buffer.from(await response.arrayBuffer());
  return reply.send(body.length > 0 ? body : undefined);
}
