import type { AuthIdentity, OAuthEndpoints } from '../../../capabilities/authIdentity.ts';
import type { HttpRoutes } from '../../../capabilities/httpRoutes.ts';

const FORM = ['application/x-www-form-urlencoded'] as const;
const OAUTH = '/api/v1/oauth';
const uidParams = { type: 'object', required: ['uid'], properties: { uid: { type: 'string', minLength: 1, maxLength: 100 } } };
const consentBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    scopes: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 50 }, description: 'The scopes granted, among those the client asked for (default: all of them).' },
    deny: { type: 'boolean', description: 'Refuse the authorization: the client gets access_denied.' },
  },
};

/** The OAuth 2.1 authorization server's routes (when plugins.auth.oauthProvider is on) and the resource metadata. */
export function addOAuthRoutes(routes: HttpRoutes, identity: AuthIdentity): void {
  const oauth = identity.oauth;
  if (!oauth) return;
  const serve = (path: string | ((params: Record<string, string>) => string)) => async (request: Parameters<OAuthEndpoints['serve']>[0], reply: Parameters<OAuthEndpoints['serve']>[1]) => {
    await oauth.serve(request, reply, typeof path === 'string' ? path : path(request.params as Record<string, string>));
    return reply;
  };
  const base: { public: boolean; tags: string[] } = { public: true, tags: ['oauth'] };

  routes.add({ ...base, method: 'GET', root: true, path: '/.well-known/oauth-authorization-server', summary: 'OAuth 2.0 authorization server metadata (RFC 8414)', handler: serve('/.well-known/openid-configuration') });
  routes.add({ ...base, method: 'GET', root: true, path: '/.well-known/openid-configuration', summary: 'OpenID Connect discovery of the authorization server', handler: serve('/.well-known/openid-configuration') });
  for (const path of ['', '/api/v1', '/api/v1/mcp']) {
    routes.add({
      ...base, method: 'GET', root: true, path: `/.well-known/oauth-protected-resource${path}`,
      summary: `OAuth protected resource metadata (RFC 9728) of ${path || 'the server'}: its authorization server and scopes`,
      handler: () => oauth.protectedResource(path),
    });
  }
  routes.add({ ...base, method: 'GET', path: '/oauth/authorize', errorStatuses: [400], summary: 'Authorization endpoint: code flow with PKCE (S256); redirects to the consent step, then to the client', handler: serve(`${OAUTH}/authorize`) });
  routes.add({ ...base, method: 'GET', path: '/oauth/authorize/:uid', schema: { params: uidParams }, summary: 'Resume an authorization after consent', handler: serve((p) => `${OAUTH}/authorize/${p.uid}`) });
  routes.add({ ...base, method: 'POST', path: '/oauth/token', streamedBody: FORM, errorStatuses: [400, 401], summary: 'Token endpoint (form-encoded): authorization_code with code_verifier, refresh_token', handler: serve(`${OAUTH}/token`) });
  routes.add({ ...base, method: 'POST', path: '/oauth/register', successStatus: 201, schema: { body: { type: 'object', description: 'Client metadata (RFC 7591): redirect_uris, client_name, token_endpoint_auth_method...' } }, summary: 'Dynamic client registration (RFC 7591)', handler: serve(`${OAUTH}/register`) });
  routes.add({
    ...base, method: 'POST', path: '/oauth/revoke', streamedBody: FORM, summary: 'Revoke an access or refresh token (RFC 7009)',
    handler: serve(`${OAUTH}/revoke`),
  });
  routes.add({ ...base, method: 'GET', path: '/oauth/jwks', summary: "The authorization server's public signing keys", handler: serve(`${OAUTH}/jwks`) });
  routes.add({
    ...base, method: 'GET', path: '/oauth/interaction/:uid', schema: { params: uidParams }, errorStatuses: [401, 404],
    summary: 'A pending authorization, for the signed-in user to review: the client and the scopes it asks for',
    handler: (request, reply) => oauth.interaction(request, reply, (request.params as { uid: string }).uid),
  });
  routes.add({
    ...base, method: 'POST', path: '/oauth/interaction/:uid/consent', schema: { params: uidParams, body: consentBody }, errorStatuses: [401, 404],
    summary: "The signed-in user's consent (the scopes granted) or refusal; redirects (303) back to the authorization",
    handler: (request, reply) => oauth.consent(request, reply, (request.params as { uid: string }).uid, (request.body ?? {}) as { scopes?: string[]; deny?: boolean }),
  });
}
