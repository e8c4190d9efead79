import type { Knex } from 'knex';
import type { Principal } from '../../../capabilities/authSession.ts';
import { CacheFreshness } from '../../../capabilities/cacheFreshness.ts';
import type { EventsBus } from '../../../capabilities/eventsBus.ts';
import type { MetadataRegistry } from '../../../capabilities/metadataRegistry.ts';
import type { ResolvedObject } from '../../../metadata/types.ts';
import { rowToRecord } from '../sql/codec.ts';
import { dialectOf } from '../sql/dialect.ts';
import type { Condition } from '../query/types.ts';
import { PERMISSION_SET, POSITION, POSITION_PERMISSION_SET, RECORD_SHARE, SHARING_RULE, USER_PERMISSION_SET, USER_POSITION } from './accessObjects.ts';
import { controlledFields, effectiveGrants, type AccessModel, type Grants, type ObjectPerms } from './effectiveGrants.ts';
import { fieldAccess, type FormulaReads, type FieldAccess } from './fieldAccess.ts';
import { objectPermissions } from './objectPermissions.ts';
import { matchesRecipient, rowScope, type Operation, type RuleRow, type ShareRow, type SharingInputs } from './rowScope.ts';
import { isActive } from './validityWindow.ts';

/** Everything the engine needs to secure one user's calls, built once per few seconds. */
export interface AccessProfile {
  grants: Grants;
  fields: FieldAccess;
  model: AccessModel;
  sharing: SharingInputs;
  perms(object: ResolvedObject): ObjectPerms;
  /** Memoized row scope of an object (null: every row). */
  scope(object: ResolvedObject, op: Operation): Condition | null;
}

export interface AccessService {
  profile(knex: Knex, environmentId: string, principal: Principal): Promise<AccessProfile>;
  /** The caller's profile when it is built and still fresh, without waiting; undefined otherwise (ask `profile`). */
  known(environmentId: string, principal: Principal): AccessProfile | undefined;
  /** Every row of the permission model as stored now (not cached), for dry runs of a change. */
  readModel(knex: Knex): Promise<AccessModel>;
  /** The stored fields each formula field reads, as field-level security follows them. */
  formulaReads: FormulaReads;
  /** Drops the cached grants of an environment (the permission model or a share changed). */
  invalidate(environmentId: string): void;
  /**
   * A stamp that changes whenever the environment's grants or shares change (here or, heard on the
   * events bus, in another process) and whenever the bus lapsed; null while the bus is not trusted
   * (a change elsewhere may be unheard). For caches of answers that depend on what a caller may read.
   */
  stamp(environmentId: string): string | null;
}

interface EnvEntry {
  at: number;
  model: Promise<{ model: AccessModel; controlled: Set<string>; rules: RuleRow[] }>;
  profiles: Map<string, HeldProfile>;
}

/** A caller's profile as cached: the promise every caller waits on, and the profile once built. */
interface HeldProfile {
  at: number;
  profile: Promise<AccessProfile>;
  built?: AccessProfile;
}

const profileKey = (principal: Principal) => `${principal.userId}\u0000${principal.isAdmin}\u0000${principal.organizationId ?? ''}`;

const TTL_MS = 5_000;

/**
 * `bus`: while it cannot vouch for having heard other processes' changes, every call builds the
 * caller's profile afresh and nothing is kept (cacheFreshness.ts).
 */
export function createAccessService(metadata: MetadataRegistry, ttlMs = TTL_MS, bus?: Pick<EventsBus, 'trusted' | 'epoch'>): AccessService {
  // Looked up live: an object patched at run time brings its formulas' new inputs with it.
  const formulaReads: FormulaReads = (name, field) => {
    const fields = metadata.object(name)?.fields;
    return fields && Object.hasOwn(fields, field) ? fields[field]!.compiled?.reads : undefined;
  };
  const envs = new Map<string, EnvEntry>();
  /** Changes heard per environment, and lapses of the bus (after which any change may have been missed). */
  const changes = new Map<string, number>();
  let lapses = 0;
  const freshness = new CacheFreshness(bus, () => {
    envs.clear();
    lapses++;
  });

  async function rows(knex: Knex, name: string): Promise<Record<string, unknown>[]> {
    const object = metadata.object(name);
    if (!object) return [];
    const dialect = dialectOf(knex);
    return ((await knex(name).select('*')) as Record<string, unknown>[]).map((row) => rowToRecord(object, row, dialect));
  }

  async function loadModel(knex: Knex) {
    const [positions, permissionSets, positionSets, userPositions, userSets, rules] = await Promise.all(
      [POSITION, PERMISSION_SET, POSITION_PERMISSION_SET, USER_POSITION, USER_PERMISSION_SET, SHARING_RULE].map((name) => rows(knex, name)),
    );
    const model = {
      positions: positions!.map((p) => ({ id: String(p.id), name: String(p.name), parent: (p.parent as string | null) ?? null, delegatable: p.delegatable === true, admin_scope: p.admin_scope === true })),
      permissionSets: permissionSets as unknown as AccessModel['permissionSets'],
      positionSets: positionSets as unknown as AccessModel['positionSets'],
      userPositions: userPositions as unknown as AccessModel['userPositions'],
      userSets: userSets as unknown as AccessModel['userSets'],
    };
    return { model, controlled: controlledFields(model), rules: rules as unknown as RuleRow[] };
  }

  async function buildProfile(knex: Knex, entry: EnvEntry, principal: Principal): Promise<AccessProfile> {
    const { model, controlled, rules } = await entry.model;
    const now = new Date();
    const grants = effectiveGrants(principal.userId, principal.isAdmin || principal.kind === 'system', model, now);
    grants.organizationId = principal.organizationId ?? null;
    const recipients = (q: Knex.QueryBuilder) => q
      .where((w) => w.where('recipient_type', 'user').andWhere('recipient_id', grants.userId))
      .orWhere((w) => w.where('recipient_type', 'position').whereIn('recipient_id', grants.positionIds))
      .orWhere((w) => w.where('recipient_type', 'unit_and_subordinates').whereIn('recipient_id', grants.unitIds));
    const shareObject = metadata.object(RECORD_SHARE);
    const shares = grants.isAdmin || !shareObject ? [] : ((await recipients(knex(RECORD_SHARE).select('*'))) as Record<string, unknown>[])
      .map((row) => rowToRecord(shareObject, row, dialectOf(knex)) as unknown as ShareRow);
    const holders = new Map<string, string[]>();
    for (const row of model.userPositions) {
      if (!isActive(row, now)) continue;
      holders.set(row.position, [...(holders.get(row.position) ?? []), row.user_id]);
    }
    const sharing: SharingInputs = {
      shares,
      rules: rules.filter((r) => matchesRecipient(grants, r.recipient_type, r.recipient_id)),
      holders: (id) => holders.get(id) ?? [],
    };
    const permsCache = new Map<string, ObjectPerms>();
    const scopeCache = new Map<string, Condition | null>();
    const perms = (object: ResolvedObject) => {
      let p = permsCache.get(object.name);
      if (!p) permsCache.set(object.name, (p = objectPermissions(grants, object)));
      return p;
    };
    return {
      grants,
      fields: fieldAccess(grants, controlled, formulaReads),
      model,
      sharing,
      perms,
      scope(object, op) {
        const key = `${object.name}\u0000${op}`;
        if (!scopeCache.has(key)) scopeCache.set(key, rowScope(object, grants, perms(object), sharing, op));
        return scopeCache.get(key)!;
      },
    };
  }

  return {
    profile(knex, environmentId, principal) {
      const now = Date.now();
      if (!freshness.usable()) return buildProfile(knex, { at: now, model: loadModel(knex), profiles: new Map() }, principal);
      let entry = envs.get(environmentId);
      if (!entry || now - entry.at > ttlMs) {
        entry = { at: now, model: loadModel(knex), profiles: new Map() };
        envs.set(environmentId, entry);
        entry.model.catch(() => envs.delete(environmentId));
      }
      const key = profileKey(principal);
      const cached = entry.profiles.get(key);
      if (cached && now - cached.at <= ttlMs) return cached.profile;
      const profile = buildProfile(knex, entry, principal);
      const held: HeldProfile = { at: now, profile };
      entry.profiles.set(key, held);
      profile.then((built) => { held.built = built; }, () => entry.profiles.delete(key));
      return profile;
    },
    async readModel(knex) {
      return (await loadModel(knex)).model;
    },
    formulaReads,
    known(environmentId, principal) {
      const now = Date.now();
      if (!freshness.usable()) return undefined;
      const entry = envs.get(environmentId);
      if (!entry || now - entry.at > ttlMs) return undefined;
      const cached = entry.profiles.get(profileKey(principal));
      return cached && now - cached.at <= ttlMs ? cached.built : undefined;
    },
    invalidate(environmentId) {
      envs.delete(environmentId);
      changes.set(environmentId, (changes.get(environmentId) ?? 0) + 1);
    },
    stamp(environmentId) {
      if (!freshness.usable()) return null;
      return `${lapses}.${changes.get(environmentId) ?? 0}`;
    },
  };
}
