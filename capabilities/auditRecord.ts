import type { FastifyRequest } from 'fastify';
import type { DataContext, DataEngine } from './dataEngine.ts';
import { defineCapability } from './defineCapability.ts';

/**
 * The closed list of audited actions. A plugin records only these; an unknown one is refused, so
 * an admin reading the trail can rely on this list (docs/audit.md).
 */
export const AUDIT_ACTIONS = [
  'auth.sign_in',
  'auth.sign_in_failed',
  'auth.sign_out',
  'auth.password_changed',
  'auth.password_reset',
  'auth.two_factor_changed',
  'auth.passkey_changed',
  'api_key.minted',
  'api_key.revoked',
  'user.created',
  'user.imported',
  'user.banned',
  'user.unbanned',
  'user.role_changed',
  'user.updated',
  'user.removed',
  'user.impersonation_started',
  'user.impersonation_stopped',
  'user.sessions_revoked',
  'permission_set.changed',
  'position.changed',
  'assignment.changed',
  'delegation.changed',
  'sharing_rule.changed',
  'settings.changed',
  'metadata.overlay_changed',
  'ai.pending_action_decided',
  'approval.request_decided',
  'data.exported',
  'share_link.created',
  'share_link.revoked',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Who did it and from where: the request's caller, or the engine itself. */
export interface AuditSource {
  environmentId: string;
  /** The acting user (or the API key's user); null for an anonymous caller or engine work. */
  actorId: string | null;
  actorKind: 'user' | 'apiKey' | 'system' | 'anonymous';
  ip: string | null;
  userAgent: string | null;
  requestId?: string | null;
}

export interface AuditEntry {
  action: AuditAction;
  /** Default `success`; a refused sign-in is `failure`. */
  outcome?: 'success' | 'failure';
  /** What was acted on: a user, a key, an object's record, a metadata item. */
  target?: { type: string; id?: string | null; label?: string | null };
  /**
   * Short summaries of the state before and after (scalars, a few keys). Keys that name a
   * secret (password, token, key, secret, hash...) are dropped whatever the caller sends.
   */
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
}

export interface AuditRecord {
  /**
   * Store one event in the source's environment. With `engine` (a data hook's transaction-bound
   * engine) it is written in that transaction: the event and the change commit or fail together.
   */
  record(source: AuditSource, entry: AuditEntry, options?: { engine?: DataEngine }): Promise<void>;
}

export const auditRecord = defineCapability<AuditRecord>()({
  id: 'audit.record',
  cardinality: 'single',
  description: 'Record security-relevant events (sign-ins, keys, access changes, exports, share links) in the audit trail, sys_audit_event.',
});

/** The caller of an HTTP request as the audit trail names it. */
export function auditSourceOf(request: FastifyRequest): AuditSource {
  const principal = request.principal;
  const agent = request.headers['user-agent'];
  return {
    environmentId: request.environmentId,
    actorId: principal?.userId ?? null,
    actorKind: principal ? principal.kind : 'anonymous',
    ip: request.ip ?? null,
    userAgent: typeof agent === 'string' ? agent : null,
    requestId: request.id,
  };
}

/** The caller of an engine call (a data hook's context) as the audit trail names it. */
export function auditSourceOfContext(ctx: DataContext): AuditSource {
  const principal = ctx.principal;
  return {
    environmentId: ctx.environmentId,
    actorId: principal?.userId ?? null,
    actorKind: principal ? principal.kind : ctx.system ? 'system' : 'anonymous',
    ip: ctx.client?.ip ?? null,
    userAgent: ctx.client?.userAgent ?? null,
    requestId: ctx.requestId ?? null,
  };
}
