import { auditSourceOfContext, type AuditAction, type AuditRecord } from '../../capabilities/auditRecord.ts';
import type { DataContext, DataEngine, DataRecord } from '../../capabilities/dataEngine.ts';
import type { HookHandler, HookName, HookOptions } from '../../capabilities/hooksRegistry.ts';

/** The access objects whose every change is audited, and the action each records. */
export const AUDITED_ACCESS_OBJECTS: Readonly<Record<string, AuditAction>> = {
  sys_permission_set: 'permission_set.changed',
  sys_position: 'position.changed',
  sys_user_position: 'assignment.changed',
  sys_user_permission_set: 'assignment.changed',
  sys_position_permission_set: 'assignment.changed',
  sys_sharing_rule: 'sharing_rule.changed',
};

interface WriteEvent {
  object: string;
  ctx: DataContext;
  engine: DataEngine;
  record?: DataRecord;
  previous?: DataRecord;
}

/** A position assignment made by delegation (delegated_by set) is a delegation. */
function actionOf(event: WriteEvent): AuditAction {
  const base = AUDITED_ACCESS_OBJECTS[event.object]!;
  if (event.object === 'sys_user_position' && (event.record?.delegated_by || event.previous?.delegated_by)) return 'delegation.changed';
  return base;
}

function labelOf(row: DataRecord | undefined): string | null {
  const name = row?.name ?? row?.label;
  return typeof name === 'string' ? name : null;
}

/**
 * Data hooks recording every create, update and delete of the access objects, in the write's own
 * transaction (an event is never stored for a change that rolled back, and the reverse).
 */
export function registerAccessHooks(hook: (name: HookName, handler: HookHandler, options?: HookOptions) => void, audit: AuditRecord): void {
  const handler = (kind: 'insert' | 'update' | 'delete') => (event: WriteEvent) => {
    const row = event.record ?? event.previous;
    return audit.record(auditSourceOfContext(event.ctx), {
      action: actionOf(event),
      target: { type: event.object, id: row?.id === undefined ? null : String(row.id), label: labelOf(row) },
      before: kind === 'insert' ? null : (event.previous ?? null),
      after: kind === 'delete' ? null : (event.record ?? null),
    }, { engine: event.engine });
  };
  for (const object of Object.keys(AUDITED_ACCESS_OBJECTS)) {
    hook('data.afterInsert', handler('insert'), { object });
    hook('data.afterUpdate', handler('update'), { object });
    hook('data.afterDelete', handler('delete'), { object });
  }
}
