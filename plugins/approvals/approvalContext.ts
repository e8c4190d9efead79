import type { Principal } from '../../capabilities/authSession.ts';
import type { DataContext } from '../../capabilities/dataEngine.ts';
import { codedError } from '../../kernel/errors.ts';

/** The approval engine's own reads and writes of its objects: a system context in the environment. */
export const system = (environmentId: string): DataContext => ({ environmentId, principal: null, system: true });

/** The signed-in caller of an approval route (a system principal is no caller). */
export function caller(principal: Principal | null): Principal {
  if (!principal || principal.kind === 'system') throw codedError('UNAUTHENTICATED');
  return principal;
}

export const notFound = (id: string) => codedError('NOT_FOUND', { what: `Approval request '${id.slice(0, 64)}'` });
export const invalid = (reason: string, extra: Record<string, unknown> = {}) => codedError('INVALID_STATE', { reason, ...extra });
export const denied = (permission: string) => codedError('PERMISSION_DENIED', { permission });
