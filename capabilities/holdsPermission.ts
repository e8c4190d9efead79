import type { Principal } from './authSession.ts';

/** A permission key shape: lowercase `resource:verb` (`task:close`), as actions and agents declare them. */
export const PERMISSION_KEY = /^[a-z][a-z0-9_-]{0,62}:[a-z][a-z0-9_-]{0,62}$/;

/** Whether the caller holds a permission key: admins hold every key, others through their permission sets. */
export function holdsPermission(principal: Principal, permission: string): boolean {
  return principal.isAdmin || principal.permissions.includes(permission);
}
