import type { Knex } from 'knex';
import type { AccessDecision, AccessExplanation, AccessGrants, AccessReason, FieldModeChange } from '../../../capabilities/accessGrants.ts';
import type { Principal } from '../../../capabilities/authSession.ts';
import { frozenPrincipal } from '../../../capabilities/frozenPrincipal.ts';
import type { MetadataRegistry } from '../../../capabilities/metadataRegistry.ts';
import { codedError } from '../../../kernel/errors.ts';
import type { ResolvedObject } from '../../../metadata/types.ts';
import { scopeSql } from '../query/compileQuery.ts';
import type { Condition } from '../query/types.ts';
import { dialectOf } from '../sql/dialect.ts';
import type { AccessProfile, AccessService } from './accessService.ts';
import { ADMIN_ONLY_OBJECTS } from './adminOnly.ts';
import type { ObjectAction } from './objectPermissions.ts';
import { matchesRecipient, ruleCondition, scopeParts, type Operation, type RuleRow } from './rowScope.ts';
import { resolveIn } from '../query/fieldScope.ts';
import { fieldPreview, type ModeChange, type PreviewUser } from './fieldPreview.ts';

/** Users named per list of a field preview; the counts stay exact. */
const PREVIEW_NAMES = 200;

/** The `access.grants` service: effective grants for the HTTP guard, and explanations for admins. */
export function createAccessGrants(metadata: MetadataRegistry, access: AccessService, knexOf: (environmentId: string) => Knex): AccessGrants {
  const objectOrNotFound = (name: string) => {
    const object = metadata.object(name);
    if (!object) throw codedError('NOT_FOUND', { what: `Object '${name.slice(0, 64)}'`, object: name.slice(0, 64) });
    return object;
  };
  const userProfile = async (knex: Knex, environmentId: string, userId: string) =>
    access.profile(knex, environmentId, { kind: 'user', userId, environmentId, isAdmin: await isAdminUser(knex, userId), positions: [], permissionSets: [], permissions: [] });
  return {
    async objectAccess(principal, name) {
      const profile = await access.profile(knexOf(principal.environmentId), principal.environmentId, principal);
      return { ...profile.perms(objectOrNotFound(name)) };
    },
    async evaluateRule(environmentId, rule, userId) {
      const object = objectOrNotFound(rule.object);
      const knex = knexOf(environmentId);
      const profile = await userProfile(knex, environmentId, userId);
      const recipient = matchesRecipient(profile.grants, rule.recipient_type, rule.recipient_id);
      const condition = ruleCondition(object, { id: '', owner_position: null, criteria: null, ...rule } as RuleRow, profile.sharing, (name) => {
        const resolved = resolveIn(object, null, name, name);
        if (!resolved.ok) throw codedError('VALIDATION_ERROR', { summary: resolved.message });
        return { kind: 'field', ref: resolved.ref };
      });
      const current = profile.scope(object, rule.access);
      if (!condition || current === null) return { recipient, gained: [], gainedCount: 0 };
      const gain: Condition = { kind: 'and', items: [condition, { kind: 'not', item: current }] };
      const where = scopeSql(() => gain, object, object.name, dialectOf(knex))!;
      const base = () => knex(object.name).whereRaw(`(${where.sql})`, where.bindings as Knex.RawBinding[]);
      const [rows, count] = await Promise.all([base().select('id').orderBy('id').limit(200), base().count({ n: '*' })]);
      return { recipient, gained: (rows as Array<{ id: string }>).map((r) => r.id), gainedCount: Number((count as Array<{ n: unknown }>)[0]?.n ?? 0) };
    },
    async previewFields(environmentId, setId, fields) {
      const errors = checkFieldKeys(metadata, fields);
      if (errors.length > 0) throw codedError('VALIDATION_ERROR', { summary: errors.map((e) => `${e.path} ${e.message}`).join('; '), errors });
      const knex = knexOf(environmentId);
      const model = await access.readModel(knex);
      const set = setId === null ? null : model.permissionSets.find((s) => s.id === setId);
      if (set === undefined) throw codedError('NOT_FOUND', { what: `Permission set '${String(setId).slice(0, 64)}'` });
      const rows = (await knex('sys_user').select('id', 'email', 'name', 'role')) as Array<{ id: string; email: string; name: string | null; role: string | null }>;
      const users: PreviewUser[] = rows.map((r) => ({ id: String(r.id), email: String(r.email), name: String(r.name ?? r.email), isAdmin: rolesOf(r.role).includes('admin') }));
      users.sort((a, b) => a.email.localeCompare(b.email));
      const preview = fieldPreview(model, users, { setId, fields }, (name) => Object.keys(metadata.object(name)?.fields ?? {}), access.formulaReads, new Date());
      return {
        permissionSet: set ? { id: set.id, name: set.name } : null,
        users: preview.users,
        admins: preview.admins,
        changes: preview.changes.map((c) => ({ field: c.field, read: named(c.read), edit: named(c.edit) })),
      };
    },
    async readableFields(ctx, name, fields) {
      // As the engine's reads: engine work and calls without a principal are not restricted.
      if (ctx.system || !ctx.principal) return [...fields];
      const profile = await access.profile(knexOf(ctx.environmentId), ctx.environmentId, ctx.principal);
      return fields.filter((field) => profile.fields.canRead(name, field));
    },
    async editableFields(ctx, name, fields) {
      if (ctx.system || !ctx.principal) return [...fields];
      const profile = await access.profile(knexOf(ctx.environmentId), ctx.environmentId, ctx.principal);
      return fields.filter((field) => profile.fields.canEdit(name, field));
    },
    async resolve(principal) {
      if (principal.kind === 'system') return principal;
      return resolved(principal, await access.profile(knexOf(principal.environmentId), principal.environmentId, principal));
    },
    accessStamp(environmentId) {
      return access.stamp(environmentId);
    },
    resolveKnown(principal) {
      if (principal.kind === 'system') return principal;
      const profile = access.known(principal.environmentId, principal);
      return profile && resolved(principal, profile);
    },
    async explain(environmentId, userId, objectName, recordId) {
      const object = metadata.object(objectName);
      if (!object) throw codedError('NOT_FOUND', { what: `Object '${objectName.slice(0, 64)}'`, object: objectName.slice(0, 64) });
      const knex = knexOf(environmentId);
      const profile = await userProfile(knex, environmentId, userId);
      if (recordId !== undefined && !(await knex(object.name).where('id', recordId).first('id'))) {
        throw codedError('NOT_FOUND', { what: `${object.label} '${recordId.slice(0, 64)}'`, object: object.name, id: recordId.slice(0, 64) });
      }
      const explanation: AccessExplanation = {
        userId,
        object: object.name,
        recordId: recordId ?? null,
        positions: profile.grants.positions,
        permissionSets: profile.grants.permissionSets,
        read: await decide(knex, object, profile, 'read', recordId),
        edit: await decide(knex, object, profile, 'edit', recordId),
      };
      return explanation;
    },
  };
}

/**
 * The principal with the positions, permission sets and permission keys its profile grants. A
 * frozen principal (one the authenticator has cached) is resolved once per profile it meets: the
 * same credential under the same cached profile gets the same frozen answer, and a new profile
 * (grants changed, or the cache expired) a new one.
 */
const resolutions = new WeakMap<Principal, { profile: AccessProfile; principal: Principal }>();

function resolved(principal: Principal, profile: AccessProfile): Principal {
  if (!Object.isFrozen(principal)) return withGrants(principal, profile);
  const known = resolutions.get(principal);
  if (known?.profile === profile) return known.principal;
  const fresh = frozenPrincipal(withGrants(principal, profile));
  resolutions.set(principal, { profile, principal: fresh });
  return fresh;
}

function withGrants(principal: Principal, { grants }: AccessProfile): Principal {
  return {
    ...principal,
    positions: [...grants.positions],
    permissionSets: [...grants.permissionSets],
    permissions: [...new Set([...principal.permissions, ...grants.permissions])],
  };
}

/** better-auth keeps roles as a comma list on sys_user.role. */
const rolesOf = (role: unknown) => String(role ?? '').split(',').map((r) => r.trim());

async function isAdminUser(knex: Knex, userId: string): Promise<boolean> {
  const row = (await knex('sys_user').where('id', userId).first('role').catch(() => undefined)) as { role?: string } | undefined;
  if (!row) throw codedError('NOT_FOUND', { what: `User '${userId.slice(0, 64)}'` });
  return rolesOf(row.role).includes('admin');
}

/** A field permission's key must be `object.field` of a declared field, and its value `{ read?, edit? }` of booleans. */
function checkFieldKeys(metadata: MetadataRegistry, fields: Record<string, unknown>): Array<{ path: string; message: string }> {
  const errors: Array<{ path: string; message: string }> = [];
  for (const [key, value] of Object.entries(fields)) {
    const path = `fields/${key.slice(0, 130)}`;
    const [object, field, ...rest] = key.split('.');
    const declared = object ? metadata.object(object) : undefined;
    if (!declared || !field || rest.length > 0) errors.push({ path, message: 'must be object.field of a declared object' });
    else if (!Object.hasOwn(declared.fields, field)) errors.push({ path, message: `${object} has no field ${field.slice(0, 64)}` });
    else if (typeof value !== 'object' || value === null || Array.isArray(value) || Object.entries(value).some(([k, v]) => (k !== 'read' && k !== 'edit') || typeof v !== 'boolean')) {
      errors.push({ path, message: 'must be { read?: boolean, edit?: boolean }' });
    }
  }
  return errors;
}

function named(change: ModeChange): FieldModeChange {
  const strip = (users: PreviewUser[]) => users.slice(0, PREVIEW_NAMES).map(({ id, email, name }) => ({ id, email, name }));
  return { gained: strip(change.gained), gainedCount: change.gained.length, lost: strip(change.lost), lostCount: change.lost.length };
}

function setsGranting(profile: AccessProfile, object: string, actions: ObjectAction[]): AccessReason[] {
  const reasons: AccessReason[] = [];
  for (const set of profile.model.permissionSets) {
    if (!profile.grants.permissionSets.includes(set.name)) continue;
    const objects = typeof set.objects === 'string' ? safeJson(set.objects) : set.objects;
    const perms = (objects as Record<string, Record<string, unknown>> | null)?.[object];
    const hits = actions.filter((a) => perms?.[a] === true);
    if (hits.length === 0) continue;
    for (const via of profile.grants.setSources.get(set.name) ?? []) {
      reasons.push({ effect: 'grant', source: 'permissionSet', name: set.name, detail: `${hits.join(', ')} through ${via}` });
    }
  }
  return reasons;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

async function matches(knex: Knex, object: ResolvedObject, id: string, condition: Condition): Promise<boolean> {
  const where = scopeSql(() => condition, object, object.name, dialectOf(knex))!;
  return (await knex(object.name).where('id', id).andWhereRaw(`(${where.sql})`, where.bindings as Knex.RawBinding[]).first('id')) !== undefined;
}

async function decide(knex: Knex, object: ResolvedObject, profile: AccessProfile, op: Operation, recordId?: string): Promise<AccessDecision> {
  if (profile.grants.isAdmin) return { allowed: true, reasons: [{ effect: 'grant', source: 'admin', detail: 'tenant admins hold every permission' }] };
  const perms = profile.perms(object);
  const action: ObjectAction = op === 'read' ? 'read' : 'edit';
  const reasons: AccessReason[] = [];
  if (!perms[action]) return { allowed: false, reasons: [{ effect: 'deny', source: 'objectPermission', detail: ADMIN_ONLY_OBJECTS.has(object.name) ? `${object.name} is read by admins only (whatever a permission set grants)` : `no permission set grants ${object.name}:${action}${object.system ? ' (system object)' : ''}` }] };
  reasons.push(...(object.system ? [] : [{ effect: 'grant' as const, source: 'baseline', detail: `members may ${action} ${object.name}` }]), ...setsGranting(profile, object.name, [action]));
  const all: ObjectAction = op === 'read' ? 'viewAll' : 'modifyAll';
  if (perms[all]) return { allowed: true, reasons: [...reasons, ...setsGranting(profile, object.name, op === 'read' ? ['viewAll', 'modifyAll'] : ['modifyAll'])] };
  if (profile.scope(object, op) === null) return { allowed: true, reasons: [...reasons, { effect: 'grant', source: 'sharingModel', name: object.sharingModel }] };
  const parts = scopeParts(object, profile.grants, profile.sharing, op);
  if (recordId === undefined) {
    return { allowed: true, reasons: [...reasons, ...parts.map((p) => ({ effect: 'grant' as const, source: p.source, name: p.name, detail: 'opens matching records' }))] };
  }
  const opening: AccessReason[] = [];
  for (const part of parts) if (await matches(knex, object, recordId, part.condition)) opening.push({ effect: 'grant', source: part.source, name: part.name });
  if (opening.length > 0) return { allowed: true, reasons: [...reasons, ...opening] };
  return { allowed: false, reasons: [...reasons, { effect: 'deny', source: 'sharingModel', name: object.sharingModel, detail: 'not the owner, and no share, sharing rule or policy opens this record' }] };
}
