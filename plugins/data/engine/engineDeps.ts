import type { ReadPoolPolicy } from '../query/readPool.ts';
import type { DataContext } from '../../../capabilities/dataEngine.ts';
import type { HooksRegistry } from '../../../capabilities/hooksRegistry.ts';
import type { MetadataRegistry } from '../../../capabilities/metadataRegistry.ts';
import { codedError } from '../../../kernel/errors.ts';
import type { ExpressionContext, ResolvedObject } from '../../../metadata/types.ts';
import type { ListPlans } from '../query/listPlans.ts';
import type { ByIdPlans } from '../query/byIdPlans.ts';
import type { CountCache } from '../query/countCache.ts';
import type { QueryCost } from '../query/queryCost.ts';
import type { ScopeFilter } from '../query/types.ts';
import type { Principal } from '../../../capabilities/authSession.ts';
import type { Knex } from 'knex';
import type { AccessProfile, AccessService } from '../access/accessService.ts';
import type { Database } from '../sql/openDatabase.ts';
import type { FieldError } from './coerceInput.ts';

/** What the engine needs from the plugin that hosts it. */
export interface EngineDeps {
  metadata: MetadataRegistry;
  hooks: HooksRegistry;
  /** The open database of an environment. */
  database(environmentId: string): Database;
  /** HMAC key for cursors of an environment. */
  cursorKey(environmentId: string): Buffer;
  /** Row-level security: the condition a caller's reads are limited to (none: every row). */
  scopeFilter?(ctx: DataContext): ScopeFilter | undefined;
  /** Authorization: grants, row scopes and field access of the caller. */
  access?: AccessService;
  /** Totals and pages remembered until the next write (see countCache.ts), while `countsLive`. */
  counts?: CountCache;
  /**
   * Whether the environment's totals and pages may be remembered now: on PostgreSQL while other
   * processes' writes are heard (writeSignal.ts) and the tables carry their change triggers; on
   * SQLite after a look at the file that forgets them when another connection wrote to it
   * (fileChanges.ts). Asked only for a read a remembered answer may serve (never in a transaction,
   * never for a read by id on SQLite, never without `counts`). Absent: SQLite's may.
   */
  countsLive?: (environmentId: string) => boolean;
  /**
   * PostgreSQL: whether this process has heard of the write a read-your-writes token names
   * (`ctx.writeToken`, writeSignal.ts `heard`); a read carrying one not heard yet reads the database.
   */
  tokenHeard?: (environmentId: string, token: string) => boolean;
  /** Plans of plain reads by id, per caller profile (see byIdPlans.ts); their owners serve listPlans too. */
  plans?: ByIdPlans;
  /** Plans of list queries without a cursor, per caller profile (see listPlans.ts); used with `plans`. */
  listPlans?: ListPlans;
  /** Bounds of a query's cost: time budget and joins (queryCost.ts; default DEFAULT_QUERY_COST). */
  cost?: QueryCost;
  /** Which SQLite reads go to the read workers (readPool.ts); without it, only costly queries do. */
  readPool?: ReadPoolPolicy;
}

/** The caller's access profile; null (without a promise) for engine work and calls without a principal. */
export function accessFor(deps: EngineDeps, knex: Knex, ctx: DataContext): Promise<{ profile: AccessProfile; principal: Principal }> | null {
  if (ctx.system || !ctx.principal || !deps.access) return null;
  const principal = ctx.principal;
  return deps.access.profile(knex, ctx.environmentId, principal).then((profile) => ({ profile, principal }));
}

/**
 * The caller's access profile without waiting: null when no access checks apply (engine work, no
 * principal), undefined when the profile is not built yet (then ask accessFor).
 */
export function accessKnown(deps: EngineDeps, ctx: DataContext): { profile: AccessProfile; principal: Principal } | null | undefined {
  if (ctx.system || !ctx.principal || !deps.access) return null;
  const profile = deps.access.known(ctx.environmentId, ctx.principal);
  return profile && { profile, principal: ctx.principal };
}

/** What a caller's plans are kept under: its access profile, or the anonymous owner of its environment and kind. */
export function planOwner(plans: ByIdPlans, profile: AccessProfile | undefined, ctx: DataContext): object {
  return profile ?? plans.anonymous(`${ctx.environmentId}\u0000${ctx.system === true}`);
}

/** Whether a contributed scope restricts `object` in this call (a by-id read touches that object only). */
export function appliesTo(contributed: ScopeFilter | undefined, object: ResolvedObject): boolean {
  return contributed !== undefined && contributed(object) !== null;
}

export function objectOrNotFound(deps: EngineDeps, name: string): ResolvedObject {
  const object = deps.metadata.object(name);
  if (!object) throw codedError('NOT_FOUND', { what: `Object '${name.slice(0, 64)}'`, object: name.slice(0, 64) });
  return object;
}

type Caller = Pick<DataContext, 'user' | 'session'>;

/** A shared (frozen) principal's `user` and `session`, made once and frozen like it. */
const callers = new WeakMap<object, Caller>();

function callerOf(p: NonNullable<DataContext['principal']>): Caller {
  const organizationId = p.organizationId ?? null;
  const shared = Object.isFrozen(p);
  const known = shared ? callers.get(p) : undefined;
  if (known) return known;
  const caller = { user: { id: p.userId, organizationId, positions: p.positions }, session: { organizationId } };
  if (!shared) return caller;
  const frozen = { user: Object.freeze(caller.user), session: Object.freeze(caller.session) };
  callers.set(p, frozen);
  return frozen;
}

/** The context with `user` and `session` filled from the principal, for hooks and actions. */
export function withUser(ctx: DataContext): DataContext {
  const p = ctx.principal;
  if (!p || ctx.user) return ctx;
  const { user, session } = callerOf(p);
  // Not `{ ...ctx, user, session }`: V8 makes a spread followed by keys the source lacks about a
  // microsecond per key (see newRecord.ts). Setting them again after ctx's own keys keeps a
  // `user: null` that ctx carries from winning.
  const filled: DataContext = { user, session, ...ctx };
  filled.user = user;
  filled.session = session;
  return filled;
}

export function celContext(ctx: DataContext): ExpressionContext {
  const p = ctx.principal;
  return { now: new Date(), user: p ? { id: p.userId, positions: p.positions, organizationId: p.organizationId ?? null } : null };
}

export function validationError(errors: FieldError[]) {
  return codedError('VALIDATION_ERROR', { summary: errors.map((e) => `${e.path} ${e.message}`).join('; '), errors });
}
