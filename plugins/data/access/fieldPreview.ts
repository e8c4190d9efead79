import { controlledFields, effectiveGrants, type AccessModel, type PermissionSetRow } from './effectiveGrants.ts';
import { fieldAccess, type FormulaReads } from './fieldAccess.ts';

/** A user of the environment, as the preview names it. */
export interface PreviewUser {
  id: string;
  email: string;
  name: string;
  isAdmin: boolean;
}

/** The proposed `fields` of one permission set: an existing one (its id) or a new one (null). */
export interface FieldsChange {
  setId: string | null;
  fields: Record<string, unknown>;
}

/** Who gains and who loses one mode (read or edit) of one field. */
export interface ModeChange {
  gained: PreviewUser[];
  lost: PreviewUser[];
}

export interface FieldChange {
  /** `object.field`. */
  field: string;
  read: ModeChange;
  edit: ModeChange;
}

export interface FieldPreview {
  /** Users whose access was compared (every user but the admins). */
  users: number;
  /** Admins: they read and write every field, whatever the sets say. */
  admins: number;
  /** The fields some user would gain or lose, in the order of the objects' fields. */
  changes: FieldChange[];
}

/** The objects whose fields a change of a set's `fields` may open or close: those its old or new keys name. */
export function objectsTouched(model: AccessModel, change: FieldsChange): string[] {
  const keys = new Set(Object.keys(change.fields));
  const old = change.setId === null ? undefined : model.permissionSets.find((s) => s.id === change.setId);
  for (const key of Object.keys(fieldsOf(old?.fields))) keys.add(key);
  return [...new Set([...keys].map((key) => key.split('.')[0]!))];
}

function fieldsOf(value: unknown): Record<string, unknown> {
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value) as unknown;
    } catch {
      parsed = null;
    }
  }
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed as Record<string, unknown> : {};
}

/** The model as it would be with the set's `fields` replaced (or a new set, held by nobody yet, added). */
export function modelAfter(model: AccessModel, change: FieldsChange): AccessModel {
  const permissionSets: PermissionSetRow[] = change.setId === null
    ? [...model.permissionSets, { id: '\u0000proposed', name: '', objects: null, fields: change.fields, permissions: null }]
    : model.permissionSets.map((s) => (s.id === change.setId ? { ...s, fields: change.fields } : s));
  return { ...model, permissionSets };
}

/**
 * Dry run of a change of one permission set's field permissions: for every user, field-level
 * security as it decides now (fieldAccess over effectiveGrants, validity windows applied) and as it
 * would decide after the change, compared field by field over the objects the change touches
 * (formula fields included: they follow the fields they read). A field named in any set is hidden
 * from everyone who holds no set granting it, so naming a field for the first time takes it from
 * every other user, and removing its last mention opens it to everyone. Admins never change.
 * Pure: the rows, the users and the objects' fields are read elsewhere.
 */
export function fieldPreview(
  model: AccessModel,
  users: readonly PreviewUser[],
  change: FieldsChange,
  fieldNames: (object: string) => readonly string[],
  formulaReads: FormulaReads,
  now: Date,
): FieldPreview {
  const after = modelAfter(model, change);
  const controlledBefore = controlledFields(model);
  const controlledAfter = controlledFields(after);
  const objects = objectsTouched(model, change);
  const keys = objects.flatMap((object) => fieldNames(object).map((field) => ({ object, field })));
  const changes = new Map(keys.map(({ object, field }) => [`${object}.${field}`, { field: `${object}.${field}`, read: { gained: [], lost: [] }, edit: { gained: [], lost: [] } } as FieldChange]));

  // Each user's grants depend on its own assignments only: slice them once instead of scanning all per user.
  const byUser = <T extends { user_id: string }>(rows: T[]) => {
    const out = new Map<string, T[]>();
    for (const row of rows) {
      const list = out.get(row.user_id);
      if (list) list.push(row);
      else out.set(row.user_id, [row]);
    }
    return out;
  };
  const positionsOf = byUser(model.userPositions);
  const setsOf = byUser(model.userSets);
  let compared = 0;
  for (const user of users) {
    if (user.isAdmin) continue;
    compared++;
    const own = (m: AccessModel): AccessModel => ({ ...m, userPositions: positionsOf.get(user.id) ?? [], userSets: setsOf.get(user.id) ?? [] });
    const before = fieldAccess(effectiveGrants(user.id, false, own(model), now), controlledBefore, formulaReads);
    const later = fieldAccess(effectiveGrants(user.id, false, own(after), now), controlledAfter, formulaReads);
    for (const { object, field } of keys) {
      const entry = changes.get(`${object}.${field}`)!;
      const read = [before.canRead(object, field), later.canRead(object, field)];
      const edit = [before.canEdit(object, field), later.canEdit(object, field)];
      if (read[0] !== read[1]) entry.read[read[1] ? 'gained' : 'lost'].push(user);
      if (edit[0] !== edit[1]) entry.edit[edit[1] ? 'gained' : 'lost'].push(user);
    }
  }
  const moved = (m: ModeChange) => m.gained.length + m.lost.length > 0;
  return {
    users: compared,
    admins: users.length - compared,
    changes: [...changes.values()].filter((c) => moved(c.read) || moved(c.edit)),
  };
}
