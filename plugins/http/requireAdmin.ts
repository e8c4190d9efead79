import type { Principal } from '../../capabilities/authSession.ts';
import { codedError } from '../../kernel/errors.ts';

/**
 * The caller of an operators' route: an admin of the environment, else 401 (no caller) or 403
 * `PERMISSION_DENIED` (`details.permission: 'admin'`). No permission set opens such a route: it is
 * not a route permission key a member could be granted.
 */
export function requireAdmin(principal: Principal | null, reason: string): Principal {
  if (!principal) throw codedError('UNAUTHENTICATED');
  if (!principal.isAdmin) throw codedError('PERMISSION_DENIED', { permission: 'admin', subjectId: principal.userId, reason });
  return principal;
}
