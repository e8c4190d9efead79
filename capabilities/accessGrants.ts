import type { Principal } from './authSession.ts';
import type { DataContext } from './dataEngine.ts';
import { defineCapability } from './defineCapability.ts';

export type AccessOperation = 'read' | 'edit';

/** One reason in an explanation: what grants or denies, and through what. */
export interface AccessReason {
  effect: 'grant' | 'deny';
  /** baseline, admin, permissionSet, position, owner, share, sharingRule, policy, sharingModel, field. */
  source: string;
  /** Name or id of the permission set, position, share, rule or policy. */
  name?: string;
  detail?: string;
}

export interface AccessDecision {
  allowed: boolean;
  reasons: AccessReason[];
}

export interface AccessExplanation {
  userId: string;
  object: string;
  recordId: string | null;
  positions: string[];
  permissionSets: string[];
  read: AccessDecision;
  edit: AccessDecision;
}

export interface ObjectAccess {
  read: boolean;
  create: boolean;
  edit: boolean;
  delete: boolean;
  viewAll: boolean;
  modifyAll: boolean;
}

/** A sharing rule as stored (sys_sharing_rule), for a dry run. */
export interface SharingRuleInput {
  name: string;
  object: string;
  kind: 'owner' | 'criteria';
  criteria?: unknown;
  owner_position?: string | null;
  recipient_type: 'user' | 'position' | 'unit_and_subordinates';
  recipient_id: string;
  access: AccessOperation;
}

export interface RuleEvaluation {
  /** Whether the rule's recipient covers the user. */
  recipient: boolean;
  /** Records the rule would open to the user that it cannot read today (at most 200 ids). */
  gained: string[];
  gainedCount: number;
}

/** A user named by a field preview. */
export interface PreviewedUser {
  id: string;
  email: string;
  name: string;
}

/** Who would gain and who would lose one mode of a field (at most 200 of each named; the counts are exact). */
export interface FieldModeChange {
  gained: PreviewedUser[];
  gainedCount: number;
  lost: PreviewedUser[];
  lostCount: number;
}

/** The answer of a field preview: the fields some user would gain or lose, and who. */
export interface FieldPreviewAnswer {
  /** The set changed; null for a set not yet saved. */
  permissionSet: { id: string; name: string } | null;
  /** Users compared (every user but the admins). */
  users: number;
  /** Admins, who read and write every field whatever the sets say. */
  admins: number;
  changes: Array<{ field: string; read: FieldModeChange; edit: FieldModeChange }>;
}

export interface AccessGrants {
  /**
   * The principal with its effective positions, permission sets and route permission keys filled
   * from the environment's assignments (validity windows applied). Cached for a few seconds.
   */
  resolve(principal: Principal): Promise<Principal>;
  /** The same as `resolve` when the grants are at hand (resolved moments ago), without a promise; undefined otherwise. */
  resolveKnown(principal: Principal): Principal | undefined;
  /** Why a user may or may not read and edit an object, or one record of it. */
  explain(environmentId: string, userId: string, object: string, recordId?: string): Promise<AccessExplanation>;
  /** Object-level permissions of a (resolved or not) principal. */
  objectAccess(principal: Principal, object: string): Promise<ObjectAccess>;
  /**
   * Dry run of new field permissions for a permission set (its id; null: a set not yet saved, held
   * by nobody): which users would gain or lose read and edit of which fields, now. Unknown set: 404;
   * a key that is not `object.field` of a declared field: 400.
   */
  previewFields(environmentId: string, permissionSet: string | null, fields: Record<string, unknown>): Promise<FieldPreviewAnswer>;
  /** Dry run of a sharing rule for one user. */
  evaluateRule(environmentId: string, rule: SharingRuleInput, userId: string): Promise<RuleEvaluation>;
  /**
   * The fields of `fields` the caller may read under field-level security, as the engine decides
   * them for its reads (every field for engine work and calls without a principal). For side
   * indexes that must not match a caller on what it may not read.
   */
  readableFields(ctx: DataContext, object: string, fields: readonly string[]): Promise<string[]>;
  /** Of `fields`, those the caller may write under field-level security (as the engine's writes decide). */
  editableFields(ctx: DataContext, object: string, fields: readonly string[]): Promise<string[]>;
  /**
   * A stamp of what decides access in an environment: it changes whenever a permission set,
   * position, assignment, delegation, share or sharing rule changes there (in any process), so an
   * answer kept with the stamp taken before it was read is stale once the stamp differs. Null while
   * changes made elsewhere may be unheard: keep and serve nothing then.
   */
  accessStamp(environmentId: string): string | null;
}

export const accessGrants = defineCapability<AccessGrants>()({
  id: 'access.grants',
  cardinality: 'single',
  description: 'Resolve the effective positions, permission sets and permission keys of a user, and explain record access.',
});
