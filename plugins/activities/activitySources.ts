import type { Principal } from '../../capabilities/authSession.ts';
import type { DataContext, DataEngine, DataRecord } from '../../capabilities/dataEngine.ts';
import type { MetadataRegistry } from '../../capabilities/metadataRegistry.ts';
import type { ResolvedObject } from '../../metadata/types.ts';
import type { Activity, SourcePage } from './mergeTimeline.ts';
import type { Offsets, Source } from './timelineCursor.ts';

export const COMMENT_OBJECT = 'sys_comment';
export const FILE_OBJECT = 'sys_file';
export const REQUEST_OBJECT = 'sys_approval_request';
export const DECISION_OBJECT = 'sys_approval_decision';
export const EMAIL_LOG_OBJECT = 'sys_email_log';
/** The most recent approval requests of a record a timeline considers (filtered per caller in memory). */
export const MAX_APPROVAL_REQUESTS = 200;

export interface SourceDeps {
  engine: DataEngine;
  metadata: MetadataRegistry;
}

/** The record a timeline is about, the caller's context (its read already checked) and paging. */
export interface TimelineRead {
  object: ResolvedObject;
  id: string;
  ctx: DataContext;
  offsets: Offsets;
  limit: number;
}

const iso = (value: unknown): string => {
  if (value instanceof Date) return value.toISOString();
  const parsed = new Date(String(value));
  return Number.isNaN(parsed.getTime()) ? String(value) : parsed.toISOString();
};
const text = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));
const system = (ctx: DataContext): DataContext => ({ ...ctx, system: true });

/** The most rows one engine read may ask for (the page size cap of the engine-owned objects). */
export const MAX_READ = 200;

type Rows = (limit: number, offset: number) => Promise<DataRecord[]>;

/**
 * A page of the source: `limit` items from `offset`, plus whether more follow: one extra row is read
 * with them, or, when that would pass the read cap, by a second read of one row.
 */
async function pageOf(rows: Rows, limit: number, offset: number, toActivity: (row: DataRecord) => Activity): Promise<SourcePage> {
  const read = await rows(Math.min(limit + 1, MAX_READ), offset);
  const more = read.length > limit || (read.length === limit && limit + 1 > MAX_READ && (await rows(1, offset + limit)).length > 0);
  return { items: read.slice(0, limit).map(toActivity), more };
}

const OPERATION: Record<string, string> = { create: 'Created', update: 'Updated', delete: 'Deleted', restore: 'Restored' };

/**
 * History through the engine's own history read, as the caller: the record check and field-level
 * security are the engine's, exactly as on GET /data/:object/:id/history.
 */
async function history({ engine }: SourceDeps, read: TimelineRead): Promise<SourcePage> {
  const rows: Rows = async (limit, offset) => (await engine.history(read.object.name, read.id, { limit, offset }, read.ctx)).items;
  return pageOf(rows, read.limit, read.offsets.history, (row) => {
    const changes = (row.changes ?? {}) as Record<string, unknown>;
    const fields = Object.keys(changes);
    const verb = OPERATION[String(row.operation)] ?? String(row.operation);
    return {
      kind: 'history', at: iso(row.changedAt), by: text(row.changedBy),
      summary: fields.length > 0 && row.operation === 'update' ? `${verb}: ${fields.join(', ')}` : verb,
      ref: { historyId: String(row.id) },
      data: { operation: row.operation, version: Number(row.version), changes },
    };
  });
}

/** The record's comments (sys_comment rows), read as engine work once the record check passed. */
async function comments({ engine }: SourceDeps, read: TimelineRead): Promise<SourcePage> {
  const rows: Rows = async (limit, offset) => (await engine.query(COMMENT_OBJECT, {
    where: { object: { $eq: read.object.name }, record_id: { $eq: read.id } },
    orderBy: [{ field: 'created_at', order: 'desc' }, { field: 'id', order: 'desc' }],
    limit, offset,
  }, system(read.ctx), { total: false })).items;
  return pageOf(rows, read.limit, read.offsets.comment, (row) => ({
    kind: 'comment', at: iso(row.created_at), by: text(row.owner_id),
    summary: 'Commented',
    ref: { commentId: String(row.id) },
    data: { body: String(row.body), mentions: Array.isArray(row.mentions) ? row.mentions : [], editedAt: row.edited_at ? iso(row.edited_at) : null },
  }));
}

/** The record's files (sys_file rows): name, type, size and uploader; never bytes or storage keys. */
async function files({ engine }: SourceDeps, read: TimelineRead): Promise<SourcePage> {
  const rows: Rows = async (limit, offset) => (await engine.query(FILE_OBJECT, {
    where: { object: { $eq: read.object.name }, record_id: { $eq: read.id } },
    select: ['id', 'name', 'content_type', 'size', 'owner_id', 'created_at'],
    orderBy: [{ field: 'created_at', order: 'desc' }, { field: 'id', order: 'desc' }],
    limit, offset,
  }, system(read.ctx), { total: false })).items;
  return pageOf(rows, read.limit, read.offsets.file, (row) => ({
    kind: 'file', at: iso(row.created_at), by: text(row.owner_id),
    summary: `Attached ${String(row.name)}`,
    ref: { fileId: String(row.id) },
    data: { name: String(row.name), contentType: String(row.content_type), size: Number(row.size) },
  }));
}

/**
 * The record's approval requests the caller may see under the approvals plugin's rule: its
 * submitter, an approver of its current step, one who decided on it, or an admin. Others get none
 * (not even a sign that a request exists). The most recent MAX_APPROVAL_REQUESTS are considered.
 */
async function approvals({ engine }: SourceDeps, read: TimelineRead): Promise<SourcePage> {
  const principal = read.ctx.principal;
  if (!principal || principal.kind === 'system') return { items: [], more: false };
  const rows = (await engine.query(REQUEST_OBJECT, {
    where: { record_object: { $eq: read.object.name }, record_id: { $eq: read.id } },
    orderBy: [{ field: 'created_at', order: 'desc' }, { field: 'id', order: 'desc' }],
    limit: MAX_APPROVAL_REQUESTS,
  }, system(read.ctx), { total: false, findHooks: false })).items;
  const visible = await visibleRequests(engine, read.ctx, principal, rows);
  return pageOf(async (limit, offset) => visible.slice(offset, offset + limit), read.limit, read.offsets.approval, (row) => ({
    kind: 'approval', at: iso(row.created_at), by: text(row.owner_id),
    summary: `Approval request (${String(row.process)}): ${String(row.status).replace('_', ' ')}`,
    ref: { approvalRequestId: String(row.id) },
    data: { process: String(row.process), status: String(row.status), step: Number(row.step), cycle: Number(row.cycle), completedAt: row.completed_at ? iso(row.completed_at) : null },
  }));
}

async function visibleRequests(engine: DataEngine, ctx: DataContext, principal: Principal, rows: DataRecord[]): Promise<DataRecord[]> {
  if (principal.isAdmin || rows.length === 0) return rows;
  const me = principal.userId;
  const slateHas = (row: DataRecord) => {
    const users = (row.approvers as { users?: unknown } | null)?.users;
    return Array.isArray(users) && users.includes(me);
  };
  const rest = rows.filter((row) => String(row.owner_id) !== me && !slateHas(row));
  const decided = new Set<string>();
  if (rest.length > 0) {
    const decisions = await engine.query(DECISION_OBJECT, {
      where: { request_id: { $in: rest.map((row) => String(row.id)) }, user_id: { $eq: me } },
      select: ['request_id'], limit: MAX_APPROVAL_REQUESTS,
    }, system(ctx), { total: false, findHooks: false });
    for (const d of decisions.items) decided.add(String(d.request_id));
  }
  return rows.filter((row) => String(row.owner_id) === me || slateHas(row) || decided.has(String(row.id)));
}

/**
 * Who may see an email's recipients (personal data): an admin, and the user it went on behalf of.
 * Every other reader of the record sees that it went, its subject, status and how many recipients.
 */
export function seesRecipients(principal: Principal | null, sentBy: string | null): boolean {
  if (!principal || principal.kind === 'system') return false;
  return principal.isAdmin || (sentBy !== null && principal.userId === sentBy);
}

/**
 * Emails sent about the record (sys_email_log rows of the email plugin): subject, status, sender and
 * the recipient count; the addresses and the provider's id only to those seesRecipients allows.
 * The body is never stored, so never shown.
 */
async function emails({ engine }: SourceDeps, read: TimelineRead): Promise<SourcePage> {
  const rows: Rows = async (limit, offset) => (await engine.query(EMAIL_LOG_OBJECT, {
    where: { object: { $eq: read.object.name }, record_id: { $eq: read.id } },
    select: ['id', 'recipients', 'subject', 'sent_by', 'sent_at', 'status', 'message_id', 'error'],
    orderBy: [{ field: 'sent_at', order: 'desc' }, { field: 'id', order: 'desc' }],
    limit, offset,
  }, system(read.ctx), { total: false, findHooks: false })).items;
  return pageOf(rows, read.limit, read.offsets.email, (row) => {
    const sentBy = text(row.sent_by);
    const recipients = Array.isArray(row.recipients) ? row.recipients.map(String) : [];
    const failed = row.status === 'failed';
    return {
      kind: 'email', at: iso(row.sent_at), by: sentBy,
      summary: `${failed ? 'Email failed' : 'Email sent'}: ${String(row.subject)}`,
      ref: { emailId: String(row.id) },
      data: {
        subject: String(row.subject), status: String(row.status), recipientCount: recipients.length,
        ...(failed ? { error: text(row.error) } : {}),
        ...(seesRecipients(read.ctx.principal ?? null, sentBy) ? { recipients, messageId: text(row.message_id) } : {}),
      },
    };
  });
}

/**
 * The sources that apply to the object: history when it tracks history and serves it, comments when
 * its feed is on, files when they are on, approvals when the approvals plugin's objects exist, emails
 * when the email plugin keeps its log.
 */
export function sourcesFor(deps: SourceDeps, object: ResolvedObject): Partial<Record<Source, (read: TimelineRead) => Promise<SourcePage>>> {
  const serves = (method: 'history') => !object.apiMethods || object.apiMethods.includes(method);
  return {
    ...(object.enable.trackHistory && serves('history') ? { history: (read: TimelineRead) => history(deps, read) } : {}),
    ...(object.enable.feeds && deps.metadata.object(COMMENT_OBJECT) ? { comment: (read: TimelineRead) => comments(deps, read) } : {}),
    ...(object.enable.files && deps.metadata.object(FILE_OBJECT) ? { file: (read: TimelineRead) => files(deps, read) } : {}),
    ...(deps.metadata.object(REQUEST_OBJECT) && deps.metadata.object(DECISION_OBJECT) ? { approval: (read: TimelineRead) => approvals(deps, read) } : {}),
    ...(deps.metadata.object(EMAIL_LOG_OBJECT) ? { email: (read: TimelineRead) => emails(deps, read) } : {}),
  };
}
