import type { DataContext, DataEngine, DataRecord } from '../../capabilities/dataEngine.ts';
import { codedError } from '../../kernel/errors.ts';
import { openKey, REQUEST_OBJECT } from './names.ts';
import type { StepSlate } from './stepSlate.ts';

/** The fields of the before-update and before-delete events the lock reads. */
export interface WriteEvent { object: string; id?: string; previous?: DataRecord; ctx: DataContext; engine: DataEngine }

/**
 * The data-engine guard: while a request is pending, only the current step's approvers (and engine
 * work) change its record. Read inside the write's transaction through the engine it is bound to.
 */
export async function checkRecordLock(event: WriteEvent): Promise<void> {
  if (event.ctx.system) return;
  const recordId = String(event.id ?? event.previous?.id ?? '');
  const rows = await event.engine.query(REQUEST_OBJECT, { where: { open_key: openKey(event.object, recordId) }, select: ['id', 'status', 'approvers'], limit: 1 },
    { environmentId: event.ctx.environmentId, principal: null, system: true }, { total: false, findHooks: false });
  const request = rows.items[0];
  if (!request || request.status !== 'pending') return;
  const userId = event.ctx.principal?.userId;
  if (userId && (request.approvers as StepSlate).users.includes(userId)) return;
  throw codedError('RECORD_LOCKED', { object: event.object, id: recordId, requestId: String(request.id) });
}
