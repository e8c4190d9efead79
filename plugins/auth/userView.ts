import type { AuthUser } from '../../capabilities/authIdentity.ts';
import type { Principal } from '../../capabilities/authSession.ts';
import type { EngineUser } from './authEngine.ts';

export const iso = (value: Date | string | null | undefined): string | null =>
  value === null || value === undefined ? null : new Date(value).toISOString();

/** SQLite hands booleans back as 0/1. */
export const truthy = (value: unknown): boolean => value === true || value === 1 || value === '1' || value === 'true';

export function rolesOf(user: EngineUser): string[] {
  return (user.role ?? 'user').split(',').map((r) => r.trim()).filter(Boolean);
}

/** A user as our API shows it (never the password hash, which lives in another table anyway). */
export function toAuthUser(user: EngineUser): AuthUser {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    emailVerified: truthy(user.emailVerified),
    image: user.image ?? null,
    role: rolesOf(user).join(','),
    mustChangePassword: truthy(user.must_change_password),
    phoneNumber: user.phoneNumber ?? null,
    phoneNumberVerified: truthy(user.phoneNumberVerified),
    createdAt: iso(user.createdAt)!,
    updatedAt: iso(user.updatedAt)!,
  };
}

export function isBanned(user: EngineUser, now = Date.now()): boolean {
  if (!truthy(user.banned)) return false;
  return !user.banExpires || new Date(user.banExpires).getTime() > now;
}

/** The caller as the rest of the runtime sees it; positions and permissions come from the access layer. */
export function toPrincipal(user: EngineUser, kind: 'user' | 'apiKey', environmentId: string): Principal {
  return {
    kind,
    userId: user.id,
    environmentId,
    email: user.email,
    isAdmin: rolesOf(user).includes('admin'),
    positions: [],
    permissionSets: [],
    permissions: [],
    mustChangePassword: truthy(user.must_change_password),
  };
}
