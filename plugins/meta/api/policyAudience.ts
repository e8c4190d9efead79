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

/**
 * Whether the caller sees an agent's `instructions` (its system prompt) in the metadata API: admins
 * and holders of `metadata:write`, who author agents. Others see what the agent is and which tools it
 * has, as the chat offers it, not the prompt that steers it.
 */
export function seesInstructions(principal: Principal | null): boolean {
  return principal !== null && (principal.isAdmin || principal.permissions.includes('metadata:write'));
}
