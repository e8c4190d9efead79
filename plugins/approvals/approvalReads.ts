import type { Principal } from '../../capabilities/authSession.ts';
import type { DataEngine, DataRecord } from '../../capabilities/dataEngine.ts';
import { codedError, isCodedError } from '../../kernel/errors.ts';
import { apiObject } from '../../metadata/apiObject.ts';
import { caller, denied, notFound, system } from './approvalContext.ts';
import type { ApprovalDeps } from './createApprovalService.ts';
import { ATTACHMENT_OBJECT, DECISION_OBJECT, REQUEST_OBJECT } from './names.ts';
import { mentionedUsers } from './mentionedUsers.ts';
import type { ProcessSnapshot } from './processCatalog.ts';
import { requestView, type AttachmentInfo } from './requestView.ts';
import type { StepSlate } from './stepSlate.ts';

/** Requests of one record listed at most (newest first). */
const RECORD_REQUESTS = 50;

/**
 * What the approval routes read: a request as its caller may see it (submitter, current or past
 * approvers, admins; anyone else gets 404), the inbox lists, one record's requests, attachments,
 * with the names of the people they mention.
 */
export function createApprovalReads(deps: Pick<ApprovalDeps, 'engine' | 'metadata' | 'userNames'>) {
  const { engine } = deps;

  async function decisionsOf(tx: DataEngine, env: string, requestId: string): Promise<DataRecord[]> {
    const rows = await tx.query(DECISION_OBJECT, { where: { request_id: requestId }, orderBy: [{ field: 'created_at', order: 'asc' }, { field: 'id', order: 'asc' }], limit: 200 }, system(env), { total: false, findHooks: false });
    return rows.items;
  }

  async function attachmentsOf(env: string, requestId: string): Promise<AttachmentInfo[]> {
    const rows = await engine.query(ATTACHMENT_OBJECT, { where: { request_id: requestId }, select: ['id', 'decision_id', 'name', 'content_type', 'size'], limit: 200 }, system(env), { total: false });
    return rows.items.map((r) => ({ id: String(r.id), decisionId: String(r.decision_id), name: String(r.name), contentType: String(r.content_type), size: Number(r.size) }));
  }

  /** The request as the caller may see it: submitter, current or past approvers, admins; anyone else gets 404. */
  async function visible(env: string, principal: Principal, id: string, tx: DataEngine = engine): Promise<{ request: DataRecord; decisions: DataRecord[] }> {
    let request: DataRecord;
    try {
      request = await tx.get(REQUEST_OBJECT, id, {}, system(env));
    } catch (error) {
      if (isCodedError(error) && error.code === 'NOT_FOUND') throw notFound(id);
      throw error;
    }
    const decisions = await decisionsOf(tx, env, id);
    const slate = request.approvers as StepSlate;
    const sees = principal.isAdmin || String(request.owner_id) === principal.userId || slate.users.includes(principal.userId)
      || decisions.some((d) => d.user_id === principal.userId);
    if (!sees) throw notFound(id);
    return { request, decisions };
  }

  async function view(env: string, id: string) {
    const request = await engine.get(REQUEST_OBJECT, id, {}, system(env));
    return (await named(env, [requestView(request, await decisionsOf(engine, env, id), await attachmentsOf(env, id), true)]))[0]!;
  }

  /** Each view with `people`: the names of the users it mentions (id -> name; an id without a name is left out). */
  async function named<T extends Parameters<typeof mentionedUsers>[0]>(env: string, views: T[]): Promise<Array<T & { people: Record<string, string> }>> {
    const wanted = [...new Set(views.flatMap(mentionedUsers))].slice(0, 500);
    const names = deps.userNames && wanted.length > 0 ? await deps.userNames(env, wanted) : new Map<string, string>();
    return views.map((v) => ({ ...v, people: Object.fromEntries(mentionedUsers(v).flatMap((id) => (names.get(id) ? [[id, names.get(id)!]] : []))) }));
  }

  async function list(env: string, principalIn: Principal | null, query: { box: 'mine' | 'assigned' | 'all'; status?: string; limit: number; cursor?: string }) {
    const principal = caller(principalIn);
    if (query.box === 'all' && !principal.isAdmin) throw denied('admin (box=all lists every request)');
    const where: Record<string, unknown> = {};
    if (query.box === 'mine') where.owner_id = principal.userId;
    if (query.box === 'assigned') { where.assignees = { $contains: `|${principal.userId}|` }; where.status = 'pending'; }
    if (query.status) where.status = query.status;
    const rows = await engine.query(REQUEST_OBJECT, { where, orderBy: [{ field: 'created_at', order: 'desc' }], limit: query.limit, ...(query.cursor ? { cursor: query.cursor } : {}) }, system(env), { total: false });
    return { items: await summaries(env, rows.items), nextCursor: rows.nextCursor ?? null };
  }

  /** Requests as lists show them (no steps or decisions), with their progress from their votes. */
  async function summaries(env: string, requests: readonly DataRecord[]) {
    // The votes of every listed request in a few reads (pages of 200, bounded), for their progress.
    const byRequest = new Map<string, DataRecord[]>();
    const ids = requests.map((r) => String(r.id));
    let cursor: string | undefined;
    for (let page = 0; page < 10 && ids.length > 0; page++) {
      const votes = await engine.query(DECISION_OBJECT, { where: { request_id: { $in: ids }, kind: { $in: ['approve', 'reject'] } }, select: ['request_id', 'cycle', 'step', 'user_id', 'kind'], limit: 200, ...(cursor ? { cursor } : {}) }, system(env), { total: false });
      for (const vote of votes.items) byRequest.set(String(vote.request_id), [...(byRequest.get(String(vote.request_id)) ?? []), vote]);
      if (!votes.nextCursor) break;
      cursor = votes.nextCursor;
    }
    return named(env, requests.map((row) => requestView(row, byRequest.get(String(row.id)) ?? [], [], false)));
  }

  /**
   * One record's approval state for a caller who may read the record (else the 404 of GET /data):
   * its lock (the pending request, which every reader may know of: writing it would say so), and
   * the record's requests the caller may see (submitter, current or past approvers, admins), newest first.
   */
  async function forRecord(env: string, principalIn: Principal | null, object: string, recordId: string) {
    const principal = caller(principalIn);
    // As GET /data/:object/:id answers: an object the API does not serve, or a record hidden or missing, is 404.
    apiObject(deps.metadata, object, 'get');
    await engine.get(object, recordId, { select: ['id'] }, { environmentId: env, principal });
    const rows = await engine.query(REQUEST_OBJECT, { where: { record_object: object, record_id: recordId }, orderBy: [{ field: 'created_at', order: 'desc' }, { field: 'id', order: 'desc' }], limit: RECORD_REQUESTS }, system(env), { total: false });
    const ids = rows.items.map((r) => String(r.id));
    const decided = ids.length === 0 ? [] : (await engine.query(DECISION_OBJECT, { where: { request_id: { $in: ids }, user_id: principal.userId }, select: ['request_id'], limit: 200 }, system(env), { total: false })).items;
    const involved = new Set(decided.map((d) => String(d.request_id)));
    const sees = (r: DataRecord) => principal.isAdmin || String(r.owner_id) === principal.userId || (r.approvers as StepSlate).users.includes(principal.userId) || involved.has(String(r.id));
    const open = rows.items.find((r) => r.status === 'pending');
    const definition = open?.definition as ProcessSnapshot | undefined;
    const lock = open && definition ? {
      requestId: String(open.id),
      process: String(open.process),
      processLabel: definition.label,
      step: { index: Number(open.step), name: definition.steps[Number(open.step)]?.name ?? '', label: definition.steps[Number(open.step)]?.label ?? '' },
      approver: (open.approvers as StepSlate).users.includes(principal.userId),
    } : null;
    return { lock, requests: await summaries(env, rows.items.filter(sees)) };
  }

  async function get(env: string, principalIn: Principal | null, id: string) {
    const principal = caller(principalIn);
    const { request, decisions } = await visible(env, principal, id);
    return (await named(env, [requestView(request, decisions, await attachmentsOf(env, id), true)]))[0]!;
  }

  async function attachment(env: string, principalIn: Principal | null, id: string, attachmentId: string): Promise<DataRecord> {
    const principal = caller(principalIn);
    await visible(env, principal, id);
    const rows = await engine.query(ATTACHMENT_OBJECT, { where: { id: attachmentId, request_id: id }, limit: 1 }, system(env), { total: false });
    if (!rows.items[0]) throw codedError('NOT_FOUND', { what: `Attachment '${attachmentId.slice(0, 64)}'` });
    return rows.items[0];
  }

  return { decisionsOf, attachmentsOf, visible, view, named, list, forRecord, get, attachment };
}

export type ApprovalReads = ReturnType<typeof createApprovalReads>;
