import type { AuthIdentity, AuthRequestContext, EnvironmentSession, OAuthEndpoints } from '../../capabilities/authIdentity.ts';
import type { EmailSend } from '../../capabilities/emailSend.ts';
import type { SmsSend } from '../../capabilities/smsSend.ts';
import { codedError } from '../../kernel/errors.ts';
import { getKey, listKeys, mintKey, revokeKey } from './apiKeys.ts';
import type { EngineUser } from './authEngine.ts';
import type { AuthOptions } from './authOptions.ts';
import { AUTH_BASE_PATH, allowedWhilePasswordExpired, enginePath, oauthCallbackRoute, rateFamilyOf } from './authPaths.ts';
import type { EnvironmentAuth } from './createEnvironmentAuth.ts';
import { createUser, MAX_PASSWORD } from './createUser.ts';
import { DEVICE_GRANT_PATHS, DEVICE_TOKEN_PATH, signDeviceToken } from './deviceToken.ts';
import { CLIENT_IP_HEADER } from './clientIpHeader.ts';
import { importUsers } from './import/importUsers.ts';
import { contactsOf } from './contactsOf.ts';
import { principalOfUser } from './principalOfUser.ts';
import { requestSessionToken, sessionAnswer } from './sessionAnswer.ts';
import { errorFromResponse } from './mapAuthError.ts';
import { PASSKEY_SIGN_IN_PATH, passkeySignInAnswer } from './passkeySignIn.ts';
import type { PhoneCodeLimiter } from './phoneCodeLimiter.ts';
import { isPhonePath, normalizePhoneRequest, PHONE_CODE_PATHS, phoneSignInAnswer, refusePlaceholderEmail } from './phoneRequest.ts';
import type { PrincipalCache } from './principalCache.ts';
import type { RateLimiter } from './rateLimiter.ts';
import { isTrustedOrigin } from './trustedOrigins.ts';
import { isBanned, toAuthUser } from './userView.ts';
import { MAX_CREDENTIAL_LENGTH, readCookie } from './credentials.ts';

export interface IdentityDeps {
  environments: ReadonlyMap<string, EnvironmentAuth>;
  cache: PrincipalCache;
  limiter: RateLimiter;
  options: AuthOptions;
  email: () => EmailSend | undefined;
  /** Phone sign-in, when on: its code limits and the SMS service. */
  phone: { limiter: PhoneCodeLimiter; sms: () => SmsSend | undefined } | null;
  /** The OAuth authorization server's endpoints, when it is on. */
  oauth: OAuthEndpoints | null;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The session a Cookie header holds in one environment, checked by that environment's engine
 * (its signature, its expiry) and refused for a banned user; null when there is none or it is not valid.
 */
async function sessionIn(env: EnvironmentAuth, cookieHeader: string | undefined): Promise<EnvironmentSession | null> {
  const value = readCookie(cookieHeader, env.sessionCookie);
  if (!value || value.length > MAX_CREDENTIAL_LENGTH) return null;
  let found: Awaited<ReturnType<EnvironmentAuth['engine']['api']['getSession']>>;
  try {
    found = await env.engine.api.getSession({ headers: new Headers({ cookie: `${env.sessionCookie}=${value}` }) });
  } catch (error) {
    // The engine answers malformed cookies with a 4xx: those are simply not sessions.
    const status = (error as { statusCode?: number }).statusCode;
    if (typeof status === 'number' && status < 500) return null;
    throw error;
  }
  if (!found || isBanned(found.user)) return null;
  return { environmentId: env.id, user: { id: String(found.user.id), email: typeof found.user.email === 'string' ? found.user.email : null } };
}

/** The same request addressed to another engine path (a provider may post its answer: form_post). */
async function withEnginePath(request: Request, path: string): Promise<Request> {
  const url = new URL(request.url);
  url.pathname = `${AUTH_BASE_PATH}${path}`;
  const body = SAFE_METHODS.has(request.method) ? undefined : await request.arrayBuffer();
  return new Request(url, { method: request.method, headers: request.headers, ...(body ? { body } : {}) });
}

/** The `auth.identity` service: every identity operation, per environment, with its checks. */
export function createIdentityService(deps: IdentityDeps): AuthIdentity {
  const { cache, limiter, options } = deps;
  const passwords = { min: options.minPasswordLength, max: MAX_PASSWORD };

  const envOf = (context: AuthRequestContext): EnvironmentAuth => {
    const env = deps.environments.get(context.environmentId);
    if (!env) throw codedError('NOT_FOUND', { what: `Environment '${context.environmentId.slice(0, 64)}'` });
    return env;
  };

  const principalOf = (context: AuthRequestContext) => {
    if (!context.principal) throw codedError('UNAUTHENTICATED');
    return context.principal;
  };

  // Administering users is beyond every credential scope: only an unscoped caller may.
  const adminOf = (context: AuthRequestContext) => {
    const principal = principalOf(context);
    if (principal.scopes !== undefined) {
      throw codedError('PERMISSION_DENIED', { permission: 'users:admin', reason: 'a scoped credential cannot administer users' },
        'Permission denied: an API key or token limited to scopes cannot administer users; use an unscoped credential.');
    }
    return principal;
  };

  // A browser request from an origin we do not trust never acts, whatever it carries.
  const checkOrigin = (context: AuthRequestContext) => {
    if (context.clientOrigin !== null && !isTrustedOrigin(context.clientOrigin, context.origin, options.trustedOrigins)) {
      throw codedError('PERMISSION_DENIED', { reason: 'INVALID_ORIGIN', origin: context.clientOrigin.slice(0, 200) },
        'Permission denied: requests from this origin are not trusted (add it to auth.trustedOrigins).');
    }
  };

  const engineHeaders = (context: AuthRequestContext, extra: Record<string, string> = {}) => {
    const headers = new Headers(extra);
    headers.set(CLIENT_IP_HEADER, context.ip);
    if (context.userAgent) headers.set('user-agent', context.userAgent);
    if (context.clientOrigin) headers.set('origin', context.clientOrigin);
    return headers;
  };

  const accountOf = async (request: Request, context: AuthRequestContext): Promise<string | null> => {
    if (!SAFE_METHODS.has(request.method) && (request.headers.get('content-type') ?? '').includes('json')) {
      const body = (await request.clone().json().catch(() => null)) as { email?: unknown; phoneNumber?: unknown } | null;
      if (body && typeof body.email === 'string') return body.email.trim();
      if (body && typeof body.phoneNumber === 'string') return body.phoneNumber;
    }
    return context.principal?.userId ?? null;
  };

  return {
    oauth: deps.oauth,

    async handle(request, context) {
      const env = envOf(context);
      const path = enginePath(request.url);
      if (path === null) throw codedError('ROUTE_NOT_FOUND', { method: request.method, path: new URL(request.url).pathname });
      if (context.principal?.mustChangePassword && !allowedWhilePasswordExpired(path)) {
        throw codedError('PASSWORD_EXPIRED', { subjectId: context.principal.userId });
      }
      // The environment's providers: its `auth` settings over the config file (docs/settings.md).
      const current = await env.signInEngine();
      const routed = oauthCallbackRoute(path, current.genericIds);
      if (routed === null) throw codedError('ROUTE_NOT_FOUND', { method: request.method, path: new URL(request.url).pathname });
      if (routed !== path) request = await withEnginePath(request, routed);
      const mutating = !SAFE_METHODS.has(request.method);
      if (mutating) checkOrigin(context);
      if (deps.phone && isPhonePath(routed) && mutating) {
        const normalized = await normalizePhoneRequest(request, env.context.secret);
        request = normalized.request;
        if (normalized.phone && PHONE_CODE_PATHS.has(routed)) await deps.phone.limiter.hit({ environmentId: env.id, ip: context.ip, phone: normalized.phone });
      }
      if (mutating) await refusePlaceholderEmail(request, routed);
      const family = rateFamilyOf(path);
      if (family) await limiter.hit(family, { environmentId: env.id, ip: context.ip, account: await accountOf(request, context) });
      const response = await current.handler(request);
      // Sessions, users or keys may have changed: forget what was verified in this environment.
      if (mutating) cache.clear(env.id);
      // RFC 8628 clients read OAuth errors (authorization_pending, slow_down) from these two as they are.
      if (response.status >= 400 && !DEVICE_GRANT_PATHS.has(routed)) throw await errorFromResponse(response, request.method, new URL(request.url).pathname, passwords);
      if (routed === DEVICE_TOKEN_PATH) return signDeviceToken(response, env.context.secret);
      if (deps.phone && isPhonePath(routed)) return phoneSignInAnswer(response, routed);
      if (routed === PASSKEY_SIGN_IN_PATH) return passkeySignInAnswer(response);
      return sessionAnswer(response, {
        path: routed, secret: env.context.secret, current: requestSessionToken(request, env.sessionCookie),
        reload: (id) => env.context.internalAdapter.findUserById(id),
      });
    },

    async signIn(input, context) {
      const env = envOf(context);
      checkOrigin(context);
      await limiter.hit('signIn', { environmentId: env.id, ip: context.ip, account: input.email });
      const response = await env.engine.handler(new Request(`${context.origin}${AUTH_BASE_PATH}/sign-in/email`, {
        method: 'POST',
        headers: engineHeaders(context, { 'content-type': 'application/json' }),
        body: JSON.stringify({ email: input.email.trim(), password: input.password }),
      }));
      if (response.status >= 400) throw await errorFromResponse(response, 'POST', `${AUTH_BASE_PATH}/sign-in`);
      const token = response.headers.get('set-auth-token');
      const body = (await response.json()) as { user: EngineUser; twoFactorRedirect?: boolean; twoFactorMethods?: string[] };
      // The password was right; the session waits for the second factor (its cookie is set).
      if (body.twoFactorRedirect) return { twoFactorRequired: true, methods: body.twoFactorMethods ?? ['totp', 'backup-code'], cookies: response.headers.getSetCookie() };
      if (!token) throw new Error('the auth engine issued no bearer token');
      return { token, user: toAuthUser(body.user), cookies: response.headers.getSetCookie() };
    },

    async signOut(headers, context) {
      const env = envOf(context);
      const principal = principalOf(context);
      if (principal.kind !== 'user') {
        throw codedError('VALIDATION_ERROR', { summary: 'sign-out ends a session; revoke an API key with DELETE /api/v1/keys/:id' });
      }
      checkOrigin(context);
      const forwarded = engineHeaders(context, { 'content-type': 'application/json' });
      for (const name of ['authorization', 'cookie']) {
        const value = headers.get(name);
        if (value) forwarded.set(name, value);
      }
      // The origin was checked above; the engine insists on one whenever a cookie is sent.
      if (!context.clientOrigin) forwarded.set('origin', context.origin);
      const response = await env.engine.handler(new Request(`${context.origin}${AUTH_BASE_PATH}/sign-out`, { method: 'POST', headers: forwarded, body: '{}' }));
      cache.clear(env.id);
      if (response.status >= 400) throw await errorFromResponse(response, 'POST', `${AUTH_BASE_PATH}/sign-out`);
      return { cookies: response.headers.getSetCookie() };
    },

    async createUser(input, context) {
      const env = envOf(context);
      adminOf(context);
      return createUser(env, input, options.minPasswordLength);
    },

    async importUsers(input, context) {
      const env = envOf(context);
      adminOf(context);
      // Invitation links use the configured public origin when there is one, not the Host header.
      const origin = options.baseURL ? new URL(options.baseURL).origin : context.origin;
      const result = await importUsers({ env, email: deps.email(), sms: deps.phone?.sms(), origin, inviteExpiresIn: options.inviteExpiresIn }, input);
      if (!result.dryRun) cache.clear(env.id);
      return result;
    },

    async mintKey(input, context) {
      return mintKey(envOf(context), principalOf(context), input);
    },

    async listKeys(context) {
      return listKeys(envOf(context), principalOf(context));
    },

    async getKey(id, context) {
      return getKey(envOf(context), principalOf(context), id);
    },

    async revokeKey(id, context) {
      const env = envOf(context);
      await revokeKey(env, principalOf(context), id);
      cache.clear(env.id);
    },

    async contactsOf(environmentId, userIds) {
      const env = deps.environments.get(environmentId);
      if (!env) throw codedError('NOT_FOUND', { what: `Environment '${environmentId.slice(0, 64)}'` });
      return contactsOf(env, userIds);
    },

    async userByEmail(environmentId, email) {
      const env = deps.environments.get(environmentId);
      if (!env) throw codedError('NOT_FOUND', { what: `Environment '${environmentId.slice(0, 64)}'` });
      const found = await env.context.internalAdapter.findUserByEmail(email.trim().toLowerCase());
      return found ? (await contactsOf(env, [found.user.id]))[0] ?? null : null;
    },

    methods() {
      return {
        password: true,
        passkey: options.passkeys.enabled,
        // The links are mailed: without a mail provider the engine has no magic-link routes.
        magicLink: options.magicLink.enabled && deps.email() !== undefined,
        phoneNumber: deps.phone !== null,
        twoFactor: options.twoFactor.enabled,
      };
    },

    async sessionsOf(cookieHeader) {
      const found = await Promise.all([...deps.environments.values()].map((env) => sessionIn(env, cookieHeader)));
      return found.filter((s): s is EnvironmentSession => s !== null);
    },

    async sessionUserOf(environmentId, setCookies) {
      const env = deps.environments.get(environmentId);
      if (!env) return null;
      // The last value set wins (an answer may first clear the cookie, then set the new session).
      let value: string | null = null;
      for (const cookie of setCookies) {
        const pair = cookie.split(';', 1)[0]!;
        const at = pair.indexOf('=');
        if (at > 0 && pair.slice(0, at).trim() === env.sessionCookie) value = pair.slice(at + 1).trim() || null;
      }
      if (!value) return null;
      const found = await env.engine.api.getSession({ headers: new Headers({ cookie: `${env.sessionCookie}=${value}` }) });
      return found ? { id: String(found.user.id), email: typeof found.user.email === 'string' ? found.user.email : null } : null;
    },

    async principalOf(environmentId, userId) {
      const env = deps.environments.get(environmentId);
      if (!env) throw codedError('NOT_FOUND', { what: `Environment '${environmentId.slice(0, 64)}'` });
      return principalOfUser(env, environmentId, userId);
    },
  };
}
