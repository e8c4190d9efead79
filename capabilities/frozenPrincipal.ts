import type { Principal } from './authSession.ts';

/**
 * The principal and its lists, frozen: one verified or resolved principal is shared by every
 * request that presents the same credential while it is cached, so none may change it in place.
 */
export function frozenPrincipal(principal: Principal): Principal {
  if (Object.isFrozen(principal)) return principal;
  Object.freeze(principal.positions);
  Object.freeze(principal.permissionSets);
  Object.freeze(principal.permissions);
  if (principal.scopes) Object.freeze(principal.scopes);
  return Object.freeze(principal);
}
