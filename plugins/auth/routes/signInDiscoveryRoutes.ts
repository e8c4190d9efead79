import type { AuthIdentity } from '../../../capabilities/authIdentity.ts';
import type { HttpRoutes } from '../../../capabilities/httpRoutes.ts';
import type { RuntimeInfo } from '../../../capabilities/runtimeInfo.ts';
import { codedError } from '../../../kernel/errors.ts';
import { signedInEnvironments } from '../signedInEnvironments.ts';

const methodsAnswer = {
  type: 'object',
  required: ['password', 'passkey', 'magicLink', 'phoneNumber', 'twoFactor'],
  properties: {
    password: { type: 'boolean' }, passkey: { type: 'boolean' }, magicLink: { type: 'boolean' },
    phoneNumber: { type: 'boolean' }, twoFactor: { type: 'boolean' },
  },
};

const environmentsAnswer = {
  type: 'object',
  required: ['items'],
  properties: {
    items: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'label', 'default', 'current', 'user'],
        properties: {
          id: { type: 'string' }, label: { type: 'string' }, default: { type: 'boolean' }, current: { type: 'boolean' },
          user: { type: 'object', required: ['id', 'email'], properties: { id: { type: 'string' }, email: { type: ['string', 'null'] } } },
        },
      },
    },
  },
};

/** What a sign-in page and an environment switcher need to know: the methods on, the environments signed in to. */
export function addSignInDiscoveryRoutes(routes: HttpRoutes, identity: AuthIdentity, info: RuntimeInfo): void {
  routes.add({
    method: 'GET', path: '/auth/methods', public: true, tags: ['auth'],
    summary: 'The sign-in methods the server offers (password, passkey, magic link, phone number) and whether accounts may add a second factor',
    schema: { response: { 200: methodsAnswer } },
    handler: () => identity.methods(),
  });
  routes.add({
    method: 'GET', path: '/auth/environments', tags: ['auth'],
    summary: "The environments this browser is signed in to: the request's own, and each other whose valid session cookie the request carries",
    schema: { response: { 200: environmentsAnswer } },
    handler: async (request) => {
      const principal = request.principal;
      if (!principal) throw codedError('UNAUTHENTICATED');
      const cookie = typeof request.headers.cookie === 'string' ? request.headers.cookie : undefined;
      const sessions = await identity.sessionsOf(cookie);
      const current = { environmentId: request.environmentId, user: { id: principal.userId, email: principal.email ?? null } };
      return { items: signedInEnvironments(info.environments, info.defaultEnvironment, current, sessions) };
    },
  });
}
