import type { Principal } from '../../capabilities/authSession.ts';

const sorted = (list: readonly string[] | undefined) => (list ? [...list].sort() : null);

/**
 * What decides what a principal may read, as one string: two principals with the same key read the
 * same rows and fields, so their streams share one access group (one check per change).
 */
export function principalKey(principal: Principal): string {
  return JSON.stringify([
    principal.kind, principal.userId, principal.isAdmin, principal.organizationId ?? null,
    sorted(principal.permissionSets), sorted(principal.positions), sorted(principal.permissions), sorted(principal.scopes),
  ]);
}
