import type { EnvironmentSession } from '../../capabilities/authIdentity.ts';
import type { EnvironmentInfo } from '../../capabilities/runtimeInfo.ts';

/** One environment of `GET /auth/environments`. */
export interface SignedInEnvironment {
  id: string;
  label: string;
  /** The environment served without the path prefix. */
  default: boolean;
  /** The environment the request addressed. */
  current: boolean;
  /** Who the browser is signed in as there. */
  user: { id: string; email: string | null };
}

/**
 * The environments a caller may use from this browser, in the configured order: the one it
 * addressed (as the caller), and each other in which its cookies hold a valid session (`sessions`,
 * checked by each environment's engine). An environment without such a session is not named. Pure.
 */
export function signedInEnvironments(
  environments: readonly EnvironmentInfo[], defaultId: string, current: EnvironmentSession, sessions: readonly EnvironmentSession[],
): SignedInEnvironment[] {
  const byId = new Map(sessions.map((s) => [s.environmentId, s.user]));
  byId.set(current.environmentId, current.user);
  return environments.filter((env) => byId.has(env.id)).map((env) => ({
    id: env.id,
    label: env.label,
    default: env.id === defaultId,
    current: env.id === current.environmentId,
    user: byId.get(env.id)!,
  }));
}
