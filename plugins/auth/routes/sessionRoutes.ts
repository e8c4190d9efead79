import type { AuthIdentity } from '../../../capabilities/authIdentity.ts';
import type { HttpRoutes } from '../../../capabilities/httpRoutes.ts';
import { isCodedError } from '../../../kernel/errors.ts';
import { requestContext, sendResponse, setCookies, toFetchRequest } from './fetchBridge.ts';
import { attemptedLabel, refusedBeforeActing } from './engineRouteAudit.ts';
import { recordAuth, withEngineAudit, type AuthAudit } from './recordAuthEvents.ts';

const signInBody = {
  type: 'object',
  required: ['email', 'password'],
  additionalProperties: false,
  properties: { email: { type: 'string', minLength: 1, maxLength: 320 }, password: { type: 'string', minLength: 1, maxLength: 1024 } },
};

/** The engine's own routes under /auth/*, and our sign-in and sign-out beside them. */
export function addSessionRoutes(routes: HttpRoutes, identity: AuthIdentity, audit: AuthAudit): void {
  for (const method of ['GET', 'POST'] as const) {
    routes.add({
      method, path: '/auth/*', public: true, tags: ['auth'], errorStatuses: [401, 403, 404, 409, 429],
      summary: 'Auth engine routes: session, password change and reset, email verification, admin',
      handler: async (request, reply) => sendResponse(reply, await withEngineAudit(
        audit, request, (environmentId, cookies) => identity.sessionUserOf(environmentId, cookies),
        () => identity.handle(toFetchRequest(request), requestContext(request)),
      )),
    });
  }
  routes.add({
    method: 'POST', path: '/auth/sign-in', public: true, tags: ['auth'], errorStatuses: [401, 403, 429],
    summary: 'Sign in with email and password: a bearer token, and a session cookie',
    schema: { body: signInBody },
    handler: async (request, reply) => {
      const { email, password } = request.body as { email: string; password: string };
      let result: Awaited<ReturnType<AuthIdentity['signIn']>>;
      try {
        result = await identity.signIn({ email, password }, requestContext(request));
      } catch (error) {
        if (isCodedError(error) && error.status < 500 && !refusedBeforeActing(error.status)) {
          await recordAuth(audit, request, { action: 'auth.sign_in_failed', outcome: 'failure', target: { type: 'user', label: attemptedLabel(email) }, after: { method: 'password', status: error.status } });
        }
        throw error;
      }
      setCookies(reply, result.cookies);
      if ('twoFactorRequired' in result) return { twoFactorRequired: true, methods: result.methods };
      await recordAuth(audit, request, { action: 'auth.sign_in', target: { type: 'user', id: result.user.id, label: result.user.email }, after: { method: 'password' } }, result.user.id);
      return { token: result.token, user: result.user };
    },
  });
  routes.add({
    method: 'POST', path: '/auth/sign-out', public: true, tags: ['auth'], errorStatuses: [401],
    summary: 'Revoke the session of the bearer token or session cookie',
    handler: async (request, reply) => {
      const headers = new Headers();
      for (const name of ['authorization', 'cookie'] as const) {
        const value = request.headers[name];
        if (typeof value === 'string') headers.set(name, value);
      }
      const result = await identity.signOut(headers, requestContext(request));
      await recordAuth(audit, request, { action: 'auth.sign_out', target: { type: 'session' } });
      setCookies(reply, result.cookies);
      return { success: true };
    },
  });
}
