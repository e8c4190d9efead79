import type { AuthIdentity } from '../../../capabilities/authIdentity.ts';
import type { HttpRoutes } from '../../../capabilities/httpRoutes.ts';
import { requestContext } from './fetchBridge.ts';

const mintBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 100 },
    expiresIn: { type: 'integer', minimum: 1, description: 'Seconds until the key expires; default: never' },
    scopes: {
      type: 'array', maxItems: 10, items: { type: 'string', maxLength: 50 },
      description: 'Limit the key to these scopes: data:read, data:write, actions:execute (an unknown one is refused). Leave out for a key that acts as its user.',
    },
  },
};

/** API keys of the caller: mint (the secret shown once), list, revoke. */
export function addKeyRoutes(routes: HttpRoutes, identity: AuthIdentity): void {
  routes.add({
    method: 'POST', path: '/keys', tags: ['keys'], successStatus: 201, summary: 'Mint an API key (osk_...) for the caller; the secret is shown once',
    schema: { body: mintBody },
    handler: async (request, reply) => {
      const body = (request.body ?? {}) as { name?: string; expiresIn?: number; scopes?: string[] };
      const key = await identity.mintKey(body, requestContext(request));
      reply.code(201);
      return key;
    },
  });
  routes.add({
    method: 'GET', path: '/keys', tags: ['keys'], summary: "List the caller's API keys (never their secrets)",
    handler: async (request) => ({ items: await identity.listKeys(requestContext(request)) }),
  });
  routes.add({
    method: 'GET', path: '/keys/:id', tags: ['keys'], summary: "One of the caller's API keys, with its scopes (never its secret)",
    schema: { params: { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 100 } } } },
    handler: async (request) => identity.getKey((request.params as { id: string }).id, requestContext(request)),
  });
  routes.add({
    method: 'DELETE', path: '/keys/:id', tags: ['keys'], successStatus: 204, summary: 'Revoke one of the caller\'s API keys',
    schema: { params: { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 100 } } } },
    handler: async (request, reply) => {
      await identity.revokeKey((request.params as { id: string }).id, requestContext(request));
      return reply.code(204).send();
    },
  });
}
