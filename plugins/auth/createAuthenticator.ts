import type { FastifyRequest } from 'fastify';
import type { AuthSession, Principal } from '../../capabilities/authSession.ts';
import { frozenPrincipal } from '../../capabilities/frozenPrincipal.ts';
import type { Logger } from '../../kernel/logger.ts';
import type { AuthOptions } from './authOptions.ts';
import type { EnvironmentAuth } from './createEnvironmentAuth.ts';
import { credentialKey, readCredential, type Credential } from './credentials.ts';
import { crossSiteRefusal } from './crossSiteRefusal.ts';
import { invalidCredential, signedWith } from './invalidCredential.ts';
import { scopesOf } from './keyScopes.ts';
import type { OAuthServer } from './oauth/createOAuthServer.ts';
import type { PrincipalCache } from './principalCache.ts';
import { isBanned, toPrincipal } from './userView.ts';

interface Resolved {
  principal: Principal;
  /** When the credential itself expires (ms), if it does. */
  notAfter: number | null;
}

const time = (value: Date | string | null | undefined) => (value ? new Date(value).getTime() : null);

async function viaSession(env: EnvironmentAuth, credential: Exclude<Credential, { kind: 'apiKey' }>): Promise<Resolved | null> {
  const headers = new Headers(credential.kind === 'bearer'
    ? { authorization: `Bearer ${credential.token}` }
    : { cookie: `${env.sessionCookie}=${credential.value}` });
  const found = await env.engine.api.getSession({ headers });
  if (!found || isBanned(found.user)) return null;
  return { principal: toPrincipal(found.user, 'user', env.id), notAfter: time(found.session.expiresAt) };
}

async function viaApiKey(env: EnvironmentAuth, key: string): Promise<Resolved | null> {
  const result = await env.engine.api.verifyApiKey({ body: { key } });
  if (!result.valid || !result.key) return null;
  const owner = await env.context.internalAdapter.findUserById(result.key.referenceId);
  if (!owner || isBanned(owner)) return null;
  const scopes = scopesOf(result.key.permissions);
  const principal = toPrincipal(owner, 'apiKey', env.id);
  return { principal: scopes === null ? principal : { ...principal, scopes }, notAfter: time(result.key.expiresAt) };
}

/**
 * The `auth.session` service: a session cookie, a bearer token or an API key, checked by the
 * instance of the request's environment only, so a credential of one environment means nothing
 * in another. A state-changing request whose credential is the cookie must come from the
 * server's own origin (`baseURL` when set, else the request's host) or a trusted one, on every route.
 */
export function createAuthenticator(
  environments: ReadonlyMap<string, EnvironmentAuth>, cache: PrincipalCache, log: Logger, origins: Pick<AuthOptions, 'baseURL' | 'trustedOrigins'>,
  oauth: ReadonlyMap<string, OAuthServer> = new Map(),
): AuthSession {
  const configured = origins.baseURL ? new URL(origins.baseURL).origin : null;
  return {
    authenticate(request: FastifyRequest) {
      const env = environments.get(request.environmentId);
      if (!env) return null;
      const credential = readCredential(request.headers, env.sessionCookie);
      if (!credential) return null;
      if (credential.kind === 'cookie') {
        const refusal = crossSiteRefusal(request.method, request.headers, configured ?? `${request.protocol}://${request.host || 'localhost'}`, origins.trustedOrigins);
        if (refusal) throw refusal;
      }
      // A credential verified moments ago is answered without a promise, with the principal as cached (frozen).
      const key = credentialKey(credential);
      return cache.get(env.id, key) ?? verify(env, credential, key);
    },
  };

  /** The principal of a valid credential; a credential that is not valid is a 401 (invalidCredential.ts). */
  async function verify(env: EnvironmentAuth, credential: Credential, key: string): Promise<Principal> {
    // A clear (a revocation here or in another process) after this point voids what the check reads.
    const mark = cache.mark();
    let resolved: Resolved | null = null;
    try {
      // The engine's bearer tokens are signed (`token.signature`); the OAuth server's access tokens are not.
      const server = credential.kind === 'bearer' && !credential.token.includes('.') ? oauth.get(env.id) : undefined;
      if (server) resolved = await server.verify((credential as { token: string }).token);
      else resolved = credential.kind === 'apiKey' ? await viaApiKey(env, credential.key) : await viaSession(env, credential);
    } catch (error) {
      // The engine answers malformed or unknown credentials with a 4xx: those are simply not valid.
      const status = (error as { statusCode?: number }).statusCode;
      if (typeof status === 'number' && status < 500) throw invalidCredential(credential, env.id, null);
      log.error({ err: error }, 'credential check failed');
      throw error;
    }
    if (!resolved) {
      const issuer = credential.kind === 'bearer' ? [...environments.values()].find((other) => other !== env && signedWith(credential.token, other.context.secret)) : undefined;
      throw invalidCredential(credential, env.id, issuer?.id ?? null);
    }
    cache.set(env.id, key, resolved.principal, resolved.notAfter, mark);
    return frozenPrincipal(resolved.principal);
  }
}
