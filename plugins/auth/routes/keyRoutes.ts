import type { AuthIdentity } from '../../../capabilities/authIdentity.ts';
import type { HttpRoutes } from '../../../capabilities/httpRoutes.ts';
import { requestContext } from './fetchBridge.ts';
import { recordAuth, type AuthAudit } from './recordAuthEvents.ts';

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
export function addKeyRoutes(routes: HttpRoutes, identity: AuthIdentity, audit: AuthAudit): void {
  routes.add({
    method: 'POST', path: '/keys', tags: ['keys'], successStatus: 201, summary: 'Mint an API key (osk_...) for the caller; the secret is shown once',
    schema: { body: mintBody },
    handler: async (request, reply) => {
      const body = (request.body ?? {}) as { name?: string; expiresIn?: number; scopes?: string[] };
      const key = await identity.mintKey(body, requestContext(request));
      // The secret is in the answer only: the event names the key by id, name and scopes.
      await recordAuth(audit, request, { action: 'api_key.minted', target: { type: 'api_key', id: key.id, label: key.name }, after: { name: key.name, scopes: key.scopes, expiresAt: key.expiresAt } });
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
      const { id } = request.params as { id: string };
      await identity.revokeKey(id, requestContext(request));
      await recordAuth(audit, request, { action: 'api_key.revoked', target: { type: 'api_key', id } });
      return reply.code(204).send();
    },
  });
}
