import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthEndpoints } from '../../../capabilities/authIdentity.ts';
import { CREDENTIAL_SCOPES } from '../../../capabilities/credentialScopes.ts';
import { codedError } from '../../../kernel/errors.ts';
import { grantedScopes, interactionPath, OAUTH_ROUTES, type OAuthServer } from './createOAuthServer.ts';

const isStream = (body: unknown) => typeof body === 'object' && body !== null && Symbol.asyncIterator in body;

/** The OAuth server of the request's environment, or a 404 (it serves the default environment only). */
type ServerOf = (environmentId: string) => OAuthServer | null;

function signedInUser(request: FastifyRequest) {
  const principal = request.principal;
  // Consent is the user's own act: never an API key's, never a scoped token's.
  return principal && principal.kind === 'user' && principal.scopes === undefined ? principal : null;
}

/** The requested resource of an authorization (one; the server refuses several with one code). */
function resourceOf(params: Record<string, unknown>, issuer: string): string {
  const resource = params.resource;
  if (typeof resource === 'string' && resource !== '') return resource;
  if (Array.isArray(resource) && typeof resource[0] === 'string') return resource[0];
  return `${issuer}/api/v1`;
}

/**
 * The HTTP face of the OAuth server: its own endpoints get the raw request (a form body still
 * unread, a JSON body as parsed), and the consent step is answered by the signed-in session.
 */
/** Counts one dynamic client registration from this IP; throws RATE_LIMITED past the limit. */
type RegistrationLimit = (environmentId: string, ip: string) => Promise<void>;

export function oauthEndpoints(issuer: string, serverOf: ServerOf, loginPage: string | undefined, revoked: (environmentId: string) => void, limitRegistration: RegistrationLimit): OAuthEndpoints {
  const serverFor = (request: FastifyRequest): OAuthServer => {
    const server = serverOf(request.environmentId);
    if (!server) throw codedError('ROUTE_NOT_FOUND', { method: request.method, path: request.url.split('?')[0]!.slice(0, 200) }, 'The OAuth server serves the default environment only.');
    return server;
  };

  const details = async (request: FastifyRequest, reply: FastifyReply, uid: string) => {
    const provider = await serverFor(request).provider();
    try {
      const found = await provider.interactionDetails(request.raw, reply.raw);
      if (found.uid !== uid) throw new Error('another interaction');
      return { provider, found };
    } catch {
      throw codedError('NOT_FOUND', { what: `Authorization request '${uid.slice(0, 64)}'` }, 'This authorization request was not found or has expired: start the authorization again from the client.');
    }
  };

  const requireUser = (request: FastifyRequest, reply: FastifyReply, uid: string) => {
    const user = signedInUser(request);
    if (user) return user;
    if (loginPage && request.method === 'GET') {
      const target = new URL(loginPage, issuer);
      target.searchParams.set('returnTo', interactionPath(uid));
      void reply.redirect(target.toString(), 302);
      return null;
    }
    throw codedError('UNAUTHENTICATED', {}, `Sign in first (POST /api/v1/auth/sign-in sets the session cookie), then open ${interactionPath(uid)} again.`);
  };

  return {
    issuer,
    async serve(request, reply, path) {
      const provider = await serverFor(request).provider();
      const raw = request.raw as typeof request.raw & { body?: unknown };
      // A JSON body was read already (the server takes it as parsed); a form body is still unread.
      if (request.body !== undefined && !isStream(request.body)) raw.body = request.body;
      if (path) {
        const q = raw.url?.indexOf('?') ?? -1;
        raw.url = q >= 0 ? `${path}${raw.url!.slice(q)}` : path;
      }
      // Registration is open to anyone: bounded per IP, before anything is written.
      if (request.method === 'POST' && raw.url?.split('?')[0] === OAUTH_ROUTES.registration) await limitRegistration(request.environmentId, request.ip);
      reply.hijack();
      const revoking = raw.url?.startsWith(OAUTH_ROUTES.revocation) === true;
      // A revoked token is refused at once: what was verified of it is forgotten, before and after.
      if (revoking) revoked(request.environmentId);
      await (provider.callback() as unknown as (req: unknown, res: unknown) => Promise<void>)(raw, reply.raw);
      if (revoking) revoked(request.environmentId);
    },

    async interaction(request, reply, uid) {
      const { found } = await details(request, reply, uid);
      const user = requireUser(request, reply, uid);
      if (!user) return reply;
      const params = found.params;
      return {
        uid,
        clientId: String(params.client_id ?? ''),
        redirectUri: String(params.redirect_uri ?? ''),
        resource: resourceOf(params, issuer),
        requestedScopes: grantedScopes(typeof params.scope === 'string' ? params.scope : undefined),
        user: { id: user.userId, email: user.email ?? null },
        consent: `POST ${interactionPath(uid)}/consent { "scopes": [...] } grants them (a subset of the requested ones); { "deny": true } refuses`,
      };
    },

    async consent(request, reply, uid, answer) {
      const { provider, found } = await details(request, reply, uid);
      const user = requireUser(request, reply, uid);
      if (!user) return reply;
      const params = found.params;
      const requested = grantedScopes(typeof params.scope === 'string' ? params.scope : undefined);
      const unknown = (answer.scopes ?? []).filter((s) => !requested.includes(s));
      if (unknown.length > 0) {
        throw codedError('VALIDATION_ERROR', {
          summary: `body/scopes holds ${unknown.map((s) => `'${s.slice(0, 50)}'`).join(', ')}, which the client did not ask for (asked: ${requested.join(', ') || 'none'}; known: ${CREDENTIAL_SCOPES.join(', ')})`,
          errors: unknown.map((s) => ({ path: 'body/scopes', message: `'${s.slice(0, 50)}' was not requested` })),
        });
      }
      const granted = answer.scopes ?? requested;
      reply.hijack();
      if (answer.deny || granted.length === 0) {
        await provider.interactionFinished(request.raw, reply.raw, { error: 'access_denied', error_description: answer.deny ? 'the user refused' : 'no scope was granted' }, { mergeWithLastSubmission: false });
        return reply;
      }
      const clientId = String(params.client_id);
      const grant = new provider.Grant({ accountId: user.userId, clientId });
      const oidc = String(params.scope ?? '').split(' ').filter((s) => s === 'openid' || s === 'offline_access');
      if (oidc.length > 0) grant.addOIDCScope(oidc.join(' '));
      const resource = resourceOf(params, issuer);
      grant.addResourceScope(resource, granted.join(' '));
      // What the user left out is refused for good, so the server does not ask for it again.
      const refused = requested.filter((scope) => !granted.includes(scope));
      if (refused.length > 0) grant.rejectResourceScope(resource, refused.join(' '));
      const grantId = await grant.save();
      await provider.interactionFinished(request.raw, reply.raw, { login: { accountId: user.userId }, consent: { grantId } }, { mergeWithLastSubmission: false });
      return reply;
    },

    protectedResource(path) {
      return {
        resource: `${issuer}${path}`,
        authorization_servers: [issuer],
        scopes_supported: [...CREDENTIAL_SCOPES],
        bearer_methods_supported: ['header'],
        resource_name: 'osr runtime API',
      };
    },
  };
}
