import { codedError, type CodedError } from '../kernel/errors.ts';
import type { Principal } from './authSession.ts';

/**
 * The scopes a credential (an API key, an OAuth access token) may be limited to. A principal
 * without `scopes` acts as its user; one with a list holds only those, and its user's grants still
 * apply on top: effective permission = scope ceiling ∩ the user's grants.
 */
export const CREDENTIAL_SCOPES = ['data:read', 'data:write', 'actions:execute'] as const;
export type CredentialScope = (typeof CREDENTIAL_SCOPES)[number];

export function isCredentialScope(value: unknown): value is CredentialScope {
  return typeof value === 'string' && (CREDENTIAL_SCOPES as readonly string[]).includes(value);
}

/** Whether the principal may do what `scope` covers: unscoped principals may, scoped ones only if listed (an empty list: nothing). */
export function holdsScope(principal: Principal | null | undefined, scope: CredentialScope): boolean {
  const scopes = principal?.scopes;
  return scopes === undefined || scopes.includes(scope);
}

/** The refusal when the principal's scopes do not cover `operation`, else null. */
export function scopeRefusal(principal: Principal | null | undefined, scope: CredentialScope, operation: string): CodedError | null {
  if (holdsScope(principal, scope)) return null;
  return codedError('SCOPE_DENIED', {
    scope,
    operation,
    granted: [...(principal!.scopes ?? [])],
    fix: `use a credential that holds ${scope}: mint an API key with POST /api/v1/keys { "name": "...", "scopes": ["${scope}"] }, or authorize the OAuth client for ${scope}`,
  });
}

/** Throws SCOPE_DENIED when the principal's scopes do not cover `operation`. */
export function requireScope(principal: Principal | null | undefined, scope: CredentialScope, operation: string): void {
  const refusal = scopeRefusal(principal, scope, operation);
  if (refusal) throw refusal;
}

/** A written record as a credential without data:read gets it back: its id and version, nothing more. */
export function idAndVersion(record: Record<string, unknown>): Record<string, unknown> {
  return { id: record.id, version: record.version };
}
