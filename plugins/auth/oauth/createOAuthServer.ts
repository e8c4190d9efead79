import type { default as ProviderClass } from 'oidc-provider';
import type { Principal } from '../../../capabilities/authSession.ts';
import { CREDENTIAL_SCOPES, isCredentialScope } from '../../../capabilities/credentialScopes.ts';
import type { Logger } from '../../../kernel/logger.ts';
import type { AuthOptions } from '../authOptions.ts';
import type { EnvironmentAuth } from '../createEnvironmentAuth.ts';
import { isBanned, toPrincipal } from '../userView.ts';
import { oauthAdapter, createOAuthTable } from './oauthStore.ts';
import { oauthSigningKey } from './oauthSigningKey.ts';

/** Where the authorization server's endpoints live (below the site root). */
export const OAUTH_BASE = '/api/v1/oauth';
export const OAUTH_ROUTES = {
  authorization: `${OAUTH_BASE}/authorize`,
  token: `${OAUTH_BASE}/token`,
  registration: `${OAUTH_BASE}/register`,
  revocation: `${OAUTH_BASE}/revoke`,
  jwks: `${OAUTH_BASE}/jwks`,
  userinfo: `${OAUTH_BASE}/userinfo`,
  end_session: `${OAUTH_BASE}/end-session`,
  introspection: `${OAUTH_BASE}/introspect`,
} as const;
export const interactionPath = (uid: string) => `${OAUTH_BASE}/interaction/${uid}`;

/** An access token's caller, as the request authenticator needs it. */
export interface OAuthCaller {
  principal: Principal;
  notAfter: number | null;
}

export interface OAuthServer {
  /** The issuer: the server's public origin. */
  issuer: string;
  /** The authorization server, started on first use (its table created in the environment's database). */
  provider(): Promise<ProviderClass>;
  /** The caller of an access token: its user, with the granted scopes; null for anything else. */
  verify(token: string): Promise<OAuthCaller | null>;
}

/** Whether `resource` names this server's API (any URL of its origin below /api, or the origin). */
export function isOwnResource(resource: string, issuer: string): boolean {
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    return false;
  }
  if (url.origin !== new URL(issuer).origin || url.hash || url.search) return false;
  return url.pathname === '/' || url.pathname === '' || url.pathname === '/api' || url.pathname.startsWith('/api/');
}

/** The credential scopes among a space-separated scope string. */
export function grantedScopes(scope: string | undefined): string[] {
  return [...new Set((scope ?? '').split(' ').filter(isCredentialScope))];
}

/**
 * The OAuth 2.1 authorization server of one environment (oidc-provider): dynamic client
 * registration, authorization code with PKCE (S256, required), consent through the signed-in
 * session, opaque access tokens bound to this server's API and holding the granted scopes.
 */
export function createOAuthServer(env: EnvironmentAuth, options: AuthOptions, secret: string, log: Logger, trustProxy: boolean): OAuthServer {
  const issuer = new URL(options.baseURL!).origin;
  const settings = options.oauthProvider;
  let started: Promise<ProviderClass> | null = null;

  const start = async (): Promise<ProviderClass> => {
    const database = await env.database();
    await createOAuthTable(database);
    const { default: Provider, errors } = await import('oidc-provider');
    const provider = new Provider(issuer, {
      adapter: oauthAdapter(database),
      findAccount: async (_ctx: unknown, id: string) => ({ accountId: id, claims: async () => ({ sub: id }) }),
      scopes: ['openid', 'offline_access'],
      claims: { openid: ['sub'] },
      responseTypes: ['code'],
      // The signing key is ES256 (oauthSigningKey.ts); agents register as public clients unless they say otherwise.
      clientDefaults: { id_token_signed_response_alg: 'ES256', grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'none' },
      pkce: { required: () => true },
      routes: OAUTH_ROUTES,
      interactions: { url: (_ctx: unknown, interaction: { uid: string }) => interactionPath(interaction.uid) },
      cookies: { keys: [secret], names: { session: `osr-${env.id}-oauth-session`, interaction: `osr-${env.id}-oauth-interaction`, resume: `osr-${env.id}-oauth-resume` } },
      jwks: { keys: [oauthSigningKey(secret)] },
      ttl: {
        AccessToken: settings.accessTokenTtl,
        AuthorizationCode: 60,
        Interaction: 600,
        Session: 86_400,
        Grant: settings.refreshTokenTtl,
        RefreshToken: settings.refreshTokenTtl,
        IdToken: 3_600,
      },
      features: {
        devInteractions: { enabled: false },
        registration: { enabled: true },
        revocation: { enabled: true },
        resourceIndicators: {
          enabled: true,
          // A client that names no resource gets a token for the data API.
          defaultResource: () => `${issuer}/api/v1`,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx: unknown, resource: string) => {
            if (!isOwnResource(resource, issuer)) throw new errors.InvalidTarget('the resource must be an address of this server\'s API');
            return { scope: CREDENTIAL_SCOPES.join(' '), audience: resource, accessTokenTTL: settings.accessTokenTtl, accessTokenFormat: 'opaque' };
          },
        },
      },
    });
    provider.proxy = trustProxy;
    provider.on('server_error', (_ctx: unknown, error: unknown) => log.error({ err: error }, 'oauth: server error'));
    return provider;
  };

  const provider = () => {
    started ??= start().catch((error: unknown) => {
      started = null;
      throw error;
    });
    return started;
  };

  return {
    issuer,
    provider,
    async verify(token) {
      const found = await (await provider()).AccessToken.find(token);
      if (!found || found.isExpired) return null;
      const owner = await env.context.internalAdapter.findUserById(found.accountId);
      if (!owner || isBanned(owner)) return null;
      // A token holds only the credential scopes it was granted: none of them, nothing.
      return { principal: { ...toPrincipal(owner, 'user', env.id), scopes: grantedScopes(found.scope) }, notAfter: found.exp ? found.exp * 1000 : null };
    },
  };
}
