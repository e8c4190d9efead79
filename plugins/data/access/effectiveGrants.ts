import type { ObjectAccess } from '../../../capabilities/accessGrants.ts';
import { isActive, type Window } from './validityWindow.ts';

/** Object permissions, as the access.grants capability describes them. */
export type ObjectPerms = ObjectAccess;

export interface FieldPerms {
  read: boolean;
  edit: boolean;
}

export interface PositionRow {
  id: string;
  name: string;
  parent: string | null;
  delegatable: boolean;
  admin_scope: boolean;
}

export interface PermissionSetRow {
  id: string;
  name: string;
  objects: unknown;
  fields: unknown;
  permissions: unknown;
}

export interface UserPositionRow extends Window {
  id: string;
  user_id: string;
  position: string;
  /** Set on an assignment made by a delegation: the delegator. */
  delegated_by?: string | null;
}

export interface UserPermissionSetRow extends Window {
  id: string;
  user_id: string;
  permission_set: string;
}

/** Every row of the permission model of one environment. */
export interface AccessModel {
  positions: PositionRow[];
  permissionSets: PermissionSetRow[];
  positionSets: Array<{ position: string; permission_set: string }>;
  userPositions: UserPositionRow[];
  userSets: UserPermissionSetRow[];
}

export interface Grants {
  userId: string;
  isAdmin: boolean;
  /** Ids of the positions held now. */
  positionIds: string[];
  /** Names of the positions held now (the `user.positions` of row policies). */
  positions: string[];
  /** Held positions and every position above them: a unit_and_subordinates recipient matches any of these. */
  unitIds: string[];
  permissionSets: string[];
  /** Route permission keys. */
  permissions: string[];
  /** Object permissions granted by permission sets (the baseline is added by objectPermissions). */
  objects: Map<string, Partial<ObjectPerms>>;
  fields: Map<string, FieldPerms>;
  /** The session's organization, for row policies over `user.organizationId`. */
  organizationId?: string | null;
  /** Holds an admin_scope position: may write the permission model's link objects. */
  adminScope: boolean;
  /** For explain: which permission set each grant came through (`position:<name>` or `direct`). */
  setSources: Map<string, string[]>;
}

const OBJECT_KEYS = ['read', 'create', 'edit', 'delete', 'viewAll', 'modifyAll'] as const;

function parseJsonish(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return null;
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The effective grants of a user at `now`: assignments outside their validity window are ignored
 * (fail closed), permission sets come through held positions and direct assignments, and their
 * object, field and route grants add up. Pure: the rows are read elsewhere.
 */
export function effectiveGrants(userId: string, isAdmin: boolean, model: AccessModel, now: Date): Grants {
  const positionsById = new Map(model.positions.map((p) => [p.id, p]));
  const setsById = new Map(model.permissionSets.map((s) => [s.id, s]));
  const held = new Set(model.userPositions.filter((r) => r.user_id === userId && isActive(r, now) && positionsById.has(r.position)).map((r) => r.position));

  const units = new Set<string>();
  for (const id of held) {
    let current: string | null = id;
    while (current !== null && !units.has(current)) {
      units.add(current);
      current = positionsById.get(current)?.parent ?? null;
    }
  }

  const setSources = new Map<string, string[]>();
  const addSet = (setId: string, source: string) => {
    if (!setsById.has(setId)) return;
    setSources.set(setId, [...(setSources.get(setId) ?? []), source]);
  };
  for (const link of model.positionSets) if (held.has(link.position)) addSet(link.permission_set, `position:${positionsById.get(link.position)!.name}`);
  for (const row of model.userSets) if (row.user_id === userId && isActive(row, now)) addSet(row.permission_set, 'direct');

  const objects = new Map<string, Partial<ObjectPerms>>();
  const fields = new Map<string, FieldPerms>();
  const permissions = new Set<string>();
  for (const setId of setSources.keys()) {
    const set = setsById.get(setId)!;
    const objs = parseJsonish(set.objects);
    if (isRecord(objs)) {
      for (const [object, perms] of Object.entries(objs)) {
        if (!isRecord(perms)) continue;
        const merged = objects.get(object) ?? {};
        for (const key of OBJECT_KEYS) if (perms[key] === true) merged[key] = true;
        objects.set(object, merged);
      }
    }
    const flds = parseJsonish(set.fields);
    if (isRecord(flds)) {
      for (const [key, perms] of Object.entries(flds)) {
        if (!isRecord(perms)) continue;
        const current = fields.get(key) ?? { read: false, edit: false };
        // Edit implies read: a field one may write but not see makes no sense.
        fields.set(key, { read: current.read || perms.read === true || perms.edit === true, edit: current.edit || perms.edit === true });
      }
    }
    const keys = parseJsonish(set.permissions);
    if (Array.isArray(keys)) for (const key of keys) if (typeof key === 'string') permissions.add(key);
  }

  return {
    userId,
    isAdmin,
    positionIds: [...held],
    positions: [...held].map((id) => positionsById.get(id)!.name),
    unitIds: [...units],
    permissionSets: [...setSources.keys()].map((id) => setsById.get(id)!.name),
    permissions: [...permissions],
    objects,
    fields,
    adminScope: [...held].some((id) => positionsById.get(id)!.admin_scope),
    setSources: new Map([...setSources].map(([id, sources]) => [setsById.get(id)!.name, sources])),
  };
}

/** Field names any permission set mentions, as `object.field`: such fields are readable and editable only through a grant. */
export function controlledFields(model: AccessModel): Set<string> {
  const out = new Set<string>();
  for (const set of model.permissionSets) {
    const flds = parseJsonish(set.fields);
    if (isRecord(flds)) for (const key of Object.keys(flds)) out.add(key);
  }
  return out;
}
