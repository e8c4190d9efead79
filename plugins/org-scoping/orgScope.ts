import type { DataContext, DataRecord } from '../../capabilities/dataEngine.ts';
import type { RowScope } from '../../capabilities/dataScopes.ts';
import { codedError } from '../../kernel/errors.ts';
import type { ResolvedObject } from '../../metadata/types.ts';

export const ORG_FIELD = 'organization_id';

export const scoped = (object: ResolvedObject) => Object.hasOwn(object.fields, ORG_FIELD);

/** A user call (engine work is not scoped) and the organization of its session, null when it has none. */
function sessionOrg(ctx: DataContext): { org: string | null } | null {
  if (ctx.system || !ctx.principal) return null;
  return { org: ctx.principal.organizationId ?? null };
}

/** Every read sees the rows of the session's organization only; a session without one sees unassigned rows. */
export const orgScope: RowScope = (object, ctx) => {
  const session = sessionOrg(ctx);
  if (!session || !scoped(object)) return null;
  return session.org === null ? { [ORG_FIELD]: { $null: true } } : { [ORG_FIELD]: session.org };
};

function refuse(ctx: DataContext, object: string, given: unknown) {
  return codedError('ORGANIZATION_MISMATCH', { object, given: String(given).slice(0, 64), subjectId: ctx.principal?.userId ?? null });
}

/** On insert: stamped from the session; a different value sent by the caller is refused, not overwritten. */
export function stampOrganization(event: { object: string; record: DataRecord; ctx: DataContext }, object: ResolvedObject | undefined): void {
  const session = sessionOrg(event.ctx);
  if (!session || !object || !scoped(object)) return;
  const given = event.record[ORG_FIELD];
  if (given !== undefined && given !== null && given !== session.org) throw refuse(event.ctx, event.object, given);
  event.record[ORG_FIELD] = session.org;
}

/** On update: a record never moves to another organization through a user call. */
export function keepOrganization(event: { object: string; patch: DataRecord; previous: DataRecord; ctx: DataContext }, object: ResolvedObject | undefined): void {
  const session = sessionOrg(event.ctx);
  if (!session || !object || !scoped(object) || !Object.hasOwn(event.patch, ORG_FIELD)) return;
  if (event.patch[ORG_FIELD] !== event.previous[ORG_FIELD]) throw refuse(event.ctx, event.object, event.patch[ORG_FIELD]);
}
