import { CREDENTIAL_SCOPES, isCredentialScope } from '../../capabilities/credentialScopes.ts';
import { codedError } from '../../kernel/errors.ts';

/** The engine permission under which a key's scopes are stored. */
const SCOPES_PERMISSION = 'scopes';

/**
 * The scopes asked for at minting, checked: undefined keeps the key acting as its user; a list must
 * name known scopes, at least one (a key that may do nothing is a mistake, not a choice).
 */
export function checkedScopes(scopes: unknown): string[] | undefined {
  if (scopes === undefined) return undefined;
  const allowed = CREDENTIAL_SCOPES.join(', ');
  if (!Array.isArray(scopes) || scopes.length === 0) {
    throw codedError('VALIDATION_ERROR', {
      summary: `body/scopes must be a non-empty list of ${allowed}; leave it out for a key that acts as its user`,
      errors: [{ path: 'body/scopes', message: `must be a non-empty list of ${allowed}` }],
    });
  }
  const errors = scopes.flatMap((scope, i) => (isCredentialScope(scope) ? [] : [{ path: `body/scopes/${i}`, message: `'${String(scope).slice(0, 50)}' is not a scope: use one of ${allowed}` }]));
  if (errors.length > 0) throw codedError('VALIDATION_ERROR', { summary: errors.map((e) => `${e.path} ${e.message}`).join('; '), errors, allowed: [...CREDENTIAL_SCOPES] });
  return [...new Set(scopes as string[])];
}

/** The engine permissions that hold these scopes. */
export function scopesPermission(scopes: string[]): Record<string, string[]> {
  return { [SCOPES_PERMISSION]: scopes };
}

/**
 * A stored key's scopes: null when it has none (it acts as its user). Anything unreadable fails
 * closed: an empty list, which allows nothing.
 */
export function scopesOf(permissions: Record<string, string[]> | string | null | undefined): string[] | null {
  if (permissions === null || permissions === undefined) return null;
  let parsed: unknown = permissions;
  if (typeof permissions === 'string') {
    try {
      parsed = JSON.parse(permissions);
    } catch {
      return [];
    }
  }
  if (parsed === null) return null;
  const list = (parsed as Record<string, unknown>)[SCOPES_PERMISSION];
  if (list === undefined && typeof parsed === 'object' && Object.keys(parsed as object).length === 0) return null;
  return Array.isArray(list) ? list.filter(isCredentialScope) : [];
}
