import type { BetterAuthOptions, BetterAuthPlugin } from 'better-auth';
import { createAuthMiddleware } from 'better-auth/api';
import { genericOAuth } from 'better-auth/plugins';
import { codedError } from '../../kernel/errors.ts';
import type { AuthOptions } from './authOptions.ts';
import type { OidcProviderOptions, SocialProviderOptions } from './oauthOptions.ts';

/** Where a generic provider's callback is served, below the auth base path. */
export const oauth2CallbackPath = (id: string) => `/oauth2/callback/${id}`;

function secretOf(provider: OidcProviderOptions | SocialProviderOptions, path: string, env: NodeJS.ProcessEnv): string | undefined {
  if (!provider.clientSecretEnv) return provider.clientSecret;
  const value = env[provider.clientSecretEnv];
  if (!value) throw codedError('CONFIG_INVALID', { path, reason: `environment variable ${provider.clientSecretEnv} (clientSecretEnv) is not set` });
  return value;
}

/**
 * Generic providers are served by the engine's social callback route; this gives them their own
 * callback path (also for providers whose discovery is retried after start), so an IdP redirects
 * to /oauth2/callback/<id>, never to a social provider's /callback/<id>.
 */
function oauth2CallbackPaths(ids: ReadonlySet<string>): BetterAuthPlugin {
  const patch = (context: { socialProviders: Array<{ id: string; callbackPath?: string | undefined }> }) => {
    for (const provider of context.socialProviders) if (ids.has(provider.id)) provider.callbackPath = oauth2CallbackPath(provider.id);
  };
  return {
    id: 'osr-oauth2-callback-paths',
    init(context) {
      patch(context);
    },
    hooks: { before: [{ matcher: () => true, handler: createAuthMiddleware(async (ctx) => patch(ctx.context)) }] },
  };
}

export interface OAuthParts {
  socialProviders: NonNullable<BetterAuthOptions['socialProviders']>;
  plugins: BetterAuthPlugin[];
}

/**
 * The engine's providers from config. `authBase` is the environment's own auth path: with a
 * configured baseURL the redirect URI is absolute and reaches this environment; without one it
 * follows the request's host, below /api/v1/auth (the default environment).
 */
export function oauthParts(options: AuthOptions, authBase: string, env: NodeJS.ProcessEnv = process.env): OAuthParts {
  const origin = options.baseURL ? new URL(options.baseURL).origin : null;
  const socialProviders: Record<string, unknown> = {};
  for (const [id, provider] of Object.entries(options.socialProviders)) {
    if (!provider) continue;
    socialProviders[id] = {
      clientId: provider.clientId,
      clientSecret: secretOf(provider, `plugins.auth.socialProviders.${id}`, env),
      ...(provider.scopes ? { scope: provider.scopes } : {}),
      disableSignUp: !(provider.signUp ?? options.signUp),
      ...(origin ? { redirectURI: `${origin}${authBase}/callback/${id}` } : {}),
    };
  }
  const plugins: BetterAuthPlugin[] = [];
  if (options.oidcProviders.length > 0) {
    plugins.push(genericOAuth({
      config: options.oidcProviders.map((p, i) => ({
        providerId: p.id,
        name: p.name,
        discoveryUrl: p.discoveryUrl,
        clientId: p.clientId,
        clientSecret: secretOf(p, `plugins.auth.oidcProviders[${i}]`, env),
        scopes: p.scopes,
        pkce: p.pkce,
        disableSignUp: !p.signUp,
        ...(origin ? { redirectURI: `${origin}${authBase}${oauth2CallbackPath(p.id)}` } : {}),
      })),
    }) as unknown as BetterAuthPlugin);
    plugins.push(oauth2CallbackPaths(new Set(options.oidcProviders.map((p) => p.id))));
  }
  return { socialProviders: socialProviders as OAuthParts['socialProviders'], plugins };
}
