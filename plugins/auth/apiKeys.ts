import type { ApiKeyInfo } from '../../capabilities/authIdentity.ts';
import type { Principal } from '../../capabilities/authSession.ts';
import { codedError } from '../../kernel/errors.ts';
import { MODELS, type EngineApiKey } from './authEngine.ts';
import type { EnvironmentAuth } from './createEnvironmentAuth.ts';
import { fromEngineThrow } from './mapAuthError.ts';
import { checkedScopes, scopesOf, scopesPermission } from './keyScopes.ts';
import { iso } from './userView.ts';

function toInfo(key: EngineApiKey): ApiKeyInfo {
  return {
    id: key.id,
    name: key.name ?? null,
    start: key.start ?? null,
    createdAt: iso(key.createdAt)!,
    expiresAt: iso(key.expiresAt),
    lastUsedAt: iso(key.lastRequest),
    scopes: scopesOf(key.permissions),
  };
}

/**
 * Mint a key owned by the caller. A key cannot mint keys: a leaked key must not be able to
 * outlive its own revocation.
 */
export async function mintKey(env: EnvironmentAuth, principal: Principal, input: { name?: string; expiresIn?: number; scopes?: string[] }): Promise<ApiKeyInfo & { key: string }> {
  // A scoped credential (an OAuth access token) is no session either: it would mint its way out of its scopes.
  if (principal.kind !== 'user' || principal.scopes !== undefined) {
    throw codedError('PERMISSION_DENIED', { permission: 'keys:mint', reason: 'API keys are minted from a signed-in session' }, 'Permission denied: an API key or a scoped token cannot mint API keys; sign in to mint one.');
  }
  const scopes = checkedScopes(input.scopes);
  try {
    const created = await env.engine.api.createApiKey({
      body: {
        userId: principal.userId, ...(input.name ? { name: input.name } : {}), expiresIn: input.expiresIn ?? null,
        ...(scopes ? { permissions: scopesPermission(scopes) } : {}),
      },
    });
    return { ...toInfo(created), key: created.key };
  } catch (error) {
    throw fromEngineThrow(error) ?? error;
  }
}

export async function listKeys(env: EnvironmentAuth, principal: Principal): Promise<ApiKeyInfo[]> {
  const keys = await env.context.adapter.findMany<EngineApiKey>({
    model: MODELS.apiKey,
    where: [{ field: 'referenceId', value: principal.userId }],
    sortBy: { field: 'createdAt', direction: 'asc' },
  });
  return keys.map(toInfo);
}

/** One of the caller's keys; someone else's key is as unknown as a missing one. */
export async function getKey(env: EnvironmentAuth, principal: Principal, id: string): Promise<ApiKeyInfo> {
  const key = await env.context.adapter.findOne<EngineApiKey>({ model: MODELS.apiKey, where: [{ field: 'id', value: id }, { field: 'referenceId', value: principal.userId }] });
  if (!key) throw codedError('NOT_FOUND', { what: `API key '${id.slice(0, 64)}'` });
  return toInfo(key);
}

/** Delete one of the caller's keys; someone else's key is as unknown as a missing one. */
export async function revokeKey(env: EnvironmentAuth, principal: Principal, id: string): Promise<void> {
  const where = [{ field: 'id', value: id }, { field: 'referenceId', value: principal.userId }];
  const key = await env.context.adapter.findOne<EngineApiKey>({ model: MODELS.apiKey, where });
  if (!key) throw codedError('NOT_FOUND', { what: `API key '${id.slice(0, 64)}'` });
  await env.context.adapter.delete({ model: MODELS.apiKey, where });
}
