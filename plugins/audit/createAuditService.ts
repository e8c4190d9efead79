import { AUDIT_ACTIONS, type AuditEntry, type AuditRecord, type AuditSource } from '../../capabilities/auditRecord.ts';
import type { DataEngine } from '../../capabilities/dataEngine.ts';
import { codedError } from '../../kernel/errors.ts';
import type { Logger } from '../../kernel/logger.ts';
import { summarize } from './summarize.ts';

/** The engine-owned object the trail is stored in (system-app/objects/sys_audit_event.json). */
export const AUDIT_EVENT = 'sys_audit_event';

const KNOWN: ReadonlySet<string> = new Set(AUDIT_ACTIONS);

const cut = (value: string | null | undefined, max: number): string | null => (typeof value === 'string' && value !== '' ? value.slice(0, max) : null);

/** The row one event is stored as: bounded texts, redacted summaries. Pure. */
export function auditRow(source: AuditSource, entry: AuditEntry, now: Date): Record<string, unknown> {
  if (!KNOWN.has(entry.action)) throw codedError('AUDIT_ACTION_UNKNOWN', { action: String(entry.action).slice(0, 60), known: AUDIT_ACTIONS.join(', ') });
  return {
    action: entry.action,
    outcome: entry.outcome ?? 'success',
    occurred_at: now.toISOString(),
    environment_id: source.environmentId,
    actor_id: cut(source.actorId, 64),
    actor_kind: source.actorKind,
    ip: cut(source.ip, 64),
    user_agent: cut(source.userAgent, 500),
    request_id: cut(source.requestId, 64),
    target_type: cut(entry.target?.type, 100),
    target_id: cut(entry.target?.id, 100),
    target_label: cut(entry.target?.label, 200),
    before: summarize(entry.before),
    after: summarize(entry.after),
  };
}

/**
 * audit.record: each event stored as engine work. In the caller's transaction when given one (the
 * event and the change then commit or fail together: a failed write throws). Without one (an HTTP
 * edge recording after the change succeeded) a failed write is logged and the request goes on.
 */
export function createAuditService(engine: DataEngine, log: Logger): AuditRecord {
  return {
    async record(source, entry, options = {}) {
      const row = auditRow(source, entry, new Date());
      const context = { environmentId: source.environmentId, principal: null, system: true };
      if (options.engine) {
        await options.engine.create(AUDIT_EVENT, row, context);
        return;
      }
      try {
        await engine.create(AUDIT_EVENT, row, context);
      } catch (error) {
        log.error({ err: error, action: entry.action, environmentId: source.environmentId, requestId: source.requestId ?? null, targetType: row.target_type, targetId: row.target_id },
          'audit: the event could not be stored; the request it records went on');
      }
    },
  };
}
