import type { FastifyRequest } from 'fastify';
import { defineCapability } from './defineCapability.ts';

export interface Principal {
  /** `user` for sessions and bearer tokens, `apiKey` for API keys, `system` for engine work. */
  kind: 'user' | 'apiKey' | 'system';
  userId: string;
  environmentId: string;
  organizationId?: string | null;
  email?: string | null;
  isAdmin: boolean;
  positions: string[];
  permissionSets: string[];
  /** Route permission keys granted (for example `ai:chat`); admins hold every key. */
  permissions: string[];
  mustChangePassword?: boolean;
  /** undefined = acts as its user; a list = only those of `data:read`, `data:write`, `actions:execute`. */
  scopes?: string[];
}

export interface AuthSession {
  /**
   * Resolve the caller of a request; `null` when no credential was sent, a 401 `UNAUTHENTICATED`
   * (thrown or rejected) for one that was sent but is not valid. The answer may come
   * without a promise: `null` for a request that carries no credential, the principal for a
   * credential verified moments ago.
   */
  authenticate(request: FastifyRequest): Principal | null | Promise<Principal | null>;
}

export const authSession = defineCapability<AuthSession>()({
  id: 'auth.session',
  cardinality: 'single',
  description: 'Authenticate requests (session cookie, bearer token, API key) into a principal.',
});
