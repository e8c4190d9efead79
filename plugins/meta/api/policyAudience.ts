import type { Principal } from '../../../capabilities/authSession.ts';

/**
 * Permission keys whose holders see an object's row policies in the metadata API, as those who
 * manage sharing rules see the rules (`GET /sharing/rules`). Admins hold every key.
 */
export const POLICY_READERS = ['sharing:manage', 'metadata:write'] as const;

/** Whether the caller sees the `policies` of object items: the conditions tell who reads which rows. */
export function seesPolicies(principal: Principal | null): boolean {
  return principal !== null && (principal.isAdmin || POLICY_READERS.some((key) => principal.permissions.includes(key)));
}
