import type { Principal } from '../../capabilities/authSession.ts';
import { MODELS, type EngineUser } from './authEngine.ts';
import type { EnvironmentAuth } from './createEnvironmentAuth.ts';
import { isBanned, toPrincipal } from './userView.ts';

/** A user as a principal for work done on its behalf; null when the user is unknown or banned. */
export async function principalOfUser(env: EnvironmentAuth, environmentId: string, userId: string): Promise<Principal | null> {
  const user = await env.context.adapter.findOne<EngineUser>({ model: MODELS.user, where: [{ field: 'id', value: userId }] });
  if (!user || isBanned(user)) return null;
  return toPrincipal(user, 'user', environmentId);
}
