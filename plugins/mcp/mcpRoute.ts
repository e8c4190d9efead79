import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { Principal } from '../../capabilities/authSession.ts';
import type { HttpRoutes } from '../../capabilities/httpRoutes.ts';
import { codedError } from '../../kernel/errors.ts';
import type { Logger } from '../../kernel/logger.ts';
import type { CallerOf } from './createMcpServer.ts';
import { hostRefusal, type HostPolicy } from './hostGuard.ts';
import { ownerOf, SessionStore, userOf, type StoredSession } from './sessionStore.ts';

export const MCP_PATH = '/mcp';

export interface HttpSession extends StoredSession {
  transport: StreamableHTTPServerTransport;
}

/** The caller of an HTTP request, handed to the protocol server with the request (never kept by the session). */
interface RequestCaller {
  principal: Principal;
  environmentId: string;
  requestId: string;
}

/** Reads the caller the route attached to the request it passes on. */
export const callerFromRequest: CallerOf = async (extra) => {
  const caller = extra.authInfo?.extra?.caller as RequestCaller | undefined;
  if (!caller) throw codedError('UNAUTHENTICATED');
  return { environmentId: caller.environmentId, principal: caller.principal, requestId: caller.requestId };
};

/** Only header credentials (a bearer token or an API key): a browser's cookie never opens or drives a session. */
function sentCredential(request: FastifyRequest): boolean {
  return typeof request.headers.authorization === 'string' || typeof request.headers['x-api-key'] === 'string';
}

/** A digest of the header credential (the API key, else the bearer token), as the authenticator reads it: sessions are counted per credential. */
function credentialOf(request: FastifyRequest): string {
  const key = request.headers['x-api-key'];
  const sent = typeof key === 'string' && key.trim() !== '' ? key.trim() : String(request.headers.authorization ?? '').replace(/^bearer\s+/i, '').trim();
  return createHash('sha256').update(sent).digest('base64url');
}

function isInitialize(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) => typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'initialize');
}

/** RFC 9728: the metadata of the resource at this path, named in the 401 challenge. */
function challenge(request: FastifyRequest, policy: HostPolicy, invalid: boolean): string {
  const origin = policy.publicOrigin ? new URL(policy.publicOrigin).origin : `${request.protocol}://${request.host}`;
  const path = request.url.split('?')[0]!.replace(/\/+$/, '');
  return `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource${path}"${invalid ? ', error="invalid_token"' : ''}`;
}

const body = { anyOf: [{ type: 'object' }, { type: 'array' }], description: 'A JSON-RPC 2.0 message of the Model Context Protocol, or a batch of them' };

/**
 * Streamable HTTP at /api/v1/mcp: POST carries client messages (initialize opens a session), GET
 * opens the server's event stream, DELETE ends a session. In order: Host and Origin (DNS
 * rebinding), a header credential (401 naming the resource metadata), then the session, which
 * only its owner may use. The request then goes to the SDK transport, with its caller attached.
 */
export function addMcpRoutes(routes: HttpRoutes, deps: {
  policy: HostPolicy;
  store: SessionStore<HttpSession>;
  createServer: () => Promise<Server>;
  log: Logger;
}): void {
  const { policy, store } = deps;

  async function open(principal: Principal, credential: string): Promise<StreamableHTTPServerTransport> {
    const server = await deps.createServer();
    const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        store.add({ id, owner: ownerOf(principal), user: userOf(principal), credential: `${principal.environmentId}:${credential}`, transport, close: () => server.close() });
      },
      onsessionclosed: (id) => store.remove(id),
    });
    transport.onclose = () => store.remove(transport.sessionId);
    await server.connect(transport);
    return transport;
  }

  async function handle(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const refusal = hostRefusal(policy, request.host, request.headers.origin);
    if (refusal) throw refusal;
    const principal = sentCredential(request) ? request.principal : null;
    if (!principal) {
      reply.header('www-authenticate', challenge(request, policy, sentCredential(request)));
      throw codedError('UNAUTHENTICATED', {}, 'Authentication required: send an API key (Authorization: Bearer osk_... or X-API-Key) or a bearer access token.');
    }
    if (principal.mustChangePassword) throw codedError('PASSWORD_EXPIRED', { subjectId: principal.userId });
    const owner = ownerOf(principal);
    const given = request.headers['mcp-session-id'];
    let transport: StreamableHTTPServerTransport;
    if (typeof given === 'string' && given !== '') {
      const session = store.get(given, owner);
      if (!session) throw codedError('MCP_SESSION_NOT_FOUND', { sessionId: given.slice(0, 64) });
      transport = session.transport;
    } else {
      if (request.method !== 'POST' || !isInitialize(request.body)) {
        throw codedError('MCP_SESSION_REQUIRED', { reason: request.method === 'POST' ? 'This message belongs to a session' : `${request.method} addresses a session` });
      }
      transport = await open(principal, credentialOf(request));
    }
    const caller: RequestCaller = { principal, environmentId: request.environmentId, requestId: request.id };
    const auth: AuthInfo = { token: '', clientId: principal.userId, scopes: principal.scopes ?? [], extra: { caller } };
    (request.raw as IncomingMessage & { auth?: AuthInfo }).auth = auth;
    reply.hijack();
    reply.raw.setHeader('x-request-id', request.id);
    try {
      await transport.handleRequest(request.raw, reply.raw, request.body);
    } catch (error) {
      deps.log.error({ err: error, requestId: request.id }, 'MCP request failed');
      if (!reply.raw.headersSent) reply.raw.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
      reply.raw.end(JSON.stringify({ error: codedError('INTERNAL', { requestId: request.id }).toJSON() }));
    }
  }

  // Public to the shared guard only: the handler checks Host and Origin first, then answers 401 itself with the RFC 9728 challenge.
  const common = { path: MCP_PATH, tags: ['mcp'], public: true, scope: 'none' as const, errorStatuses: [401, 403, 404, 503] };
  routes.add({ ...common, method: 'POST', summary: 'MCP over Streamable HTTP (API key or bearer token required): a JSON-RPC message or batch; initialize opens a session (mcp-session-id)', schema: { body }, handler: handle });
  routes.add({ ...common, method: 'GET', summary: 'MCP over Streamable HTTP: the session\'s server-to-client event stream (mcp-session-id)', handler: handle });
  routes.add({ ...common, method: 'DELETE', summary: 'MCP over Streamable HTTP: end the session named by mcp-session-id', handler: handle });
}
