import type { ResolvedObject } from '../../../metadata/types.ts';
import { LINK_OBJECTS } from './accessObjects.ts';
import { ADMIN_ONLY_OBJECTS } from './adminOnly.ts';
import { OWNER_PRIVATE_OBJECTS } from './ownerPrivate.ts';
import type { Grants, ObjectPerms } from './effectiveGrants.ts';

export type ObjectAction = keyof ObjectPerms;

const ALL: ObjectPerms = { read: true, create: true, edit: true, delete: true, viewAll: true, modifyAll: true };
const NONE: ObjectPerms = { read: false, create: false, edit: false, delete: false, viewAll: false, modifyAll: false };

/**
 * What a user may do with an object. Admins: everything. Every authenticated user has the member
 * baseline on non-system objects (read, create, edit; never delete, view all or modify all) and
 * reads the owner-private system objects (their own rows);
 * permission sets add to it. A delegated admin (admin_scope position) manages the link objects.
 * The admin-only objects (record history) are out of every member's reach, whatever a set grants.
 */
export function objectPermissions(grants: Grants, object: ResolvedObject): ObjectPerms {
  if (grants.isAdmin) return ALL;
  if (ADMIN_ONLY_OBJECTS.has(object.name)) return { ...NONE };
  const perms: ObjectPerms = object.system ? { ...NONE } : { ...NONE, read: true, create: true, edit: true };
  if (grants.adminScope && LINK_OBJECTS.has(object.name)) Object.assign(perms, ALL);
  // Their own rows only: the owner-private row scope holds whatever else is granted.
  if (OWNER_PRIVATE_OBJECTS.has(object.name)) perms.read = true;
  const granted = grants.objects.get(object.name);
  if (granted) for (const key of Object.keys(granted) as ObjectAction[]) if (granted[key]) perms[key] = true;
  // View all implies read, modify all implies everything below it.
  if (perms.modifyAll) Object.assign(perms, { read: true, edit: true, viewAll: true });
  if (perms.viewAll) perms.read = true;
  return perms;
}

/** The permission key named in PERMISSION_DENIED, e.g. `account:delete`. */
export function permissionKey(object: string, action: ObjectAction): string {
  return `${object}:${action}`;
}
