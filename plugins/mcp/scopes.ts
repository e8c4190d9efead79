import type { Principal } from '../../capabilities/authSession.ts';
import { codedError, type CodedError } from '../../kernel/errors.ts';

/** The scopes a credential may be limited to; a tool needs one of them. */
export const MCP_SCOPES = ['data:read', 'data:write', 'actions:execute'] as const;
export type McpScope = (typeof MCP_SCOPES)[number];

/** Whether the credential's ceiling allows `scope`: a principal without scopes acts as its user. */
export function holdsScope(principal: Principal, scope: McpScope): boolean {
  return principal.scopes === undefined || principal.scopes.includes(scope);
}

/** The refusal for a credential whose scopes leave `scope` out, or null. Fails closed: an empty list holds nothing. */
export function scopeRefusal(principal: Principal, scope: McpScope): CodedError | null {
  if (holdsScope(principal, scope)) return null;
  return codedError('PERMISSION_DENIED', { permission: `the scope ${scope}`, scope, scopes: principal.scopes, subjectId: principal.userId },
    `Permission denied: this credential is limited to the scopes [${principal.scopes!.join(', ')}]; ${scope} is required. Use a credential granted ${scope}.`);
}
