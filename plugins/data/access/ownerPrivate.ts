import type { RowScope } from '../../../capabilities/dataScopes.ts';

/** The engine's per-user objects: members read their own rows, and nobody, admins included, reads another's. */
export const OWNER_PRIVATE_OBJECTS: ReadonlySet<string> = new Set(['sys_notification', 'sys_ai_conversation', 'sys_ai_message']);

/**
 * The row scope of the owner-private objects: owner_id is the caller. A call without a principal
 * (api.requireAuth false) matches no row (owner_id is always set): these rows belong to someone. Engine work is not scoped.
 */
export const ownerPrivateScope: RowScope = (object, ctx) => {
  if (!OWNER_PRIVATE_OBJECTS.has(object.name)) return null;
  return { owner_id: ctx.principal?.userId ?? { $null: true } };
};
