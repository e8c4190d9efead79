import type { ActionsRegistry } from '../../capabilities/actionsRegistry.ts';
import type { Principal } from '../../capabilities/authSession.ts';
import type { DataContext, DataEngine, DataRecord } from '../../capabilities/dataEngine.ts';
import { codedError, isCodedError } from '../../kernel/errors.ts';
import type { Proposal } from './runTool.ts';

export const PENDING_OBJECT = 'sys_ai_pending_action';
export const APPROVE_KEY = 'ai:approve';
const DAY = 86_400_000;
/** Expired actions marked per read of the queue: the sweep is lazy and bounded. */
const SWEEP_BATCH = 100;
/** An approval still `applying` this long after its claim was cut off (the process stopped): it is marked failed. */
export const APPLY_STALE_MS = 10 * 60_000;
/** The error kept on an action whose apply was cut off. */
export const INTERRUPTED = {
  code: 'AI_APPLY_INTERRUPTED',
  message: 'The process applying this action stopped before recording its outcome. A create, update or delete was not applied (it commits with its applied mark); an action may have run: check the record before proposing it again.',
};

export interface Caller {
  environmentId: string;
  principal: Principal;
  requestId?: string;
}

export interface PendingActionView {
  id: string;
  status: string;
  kind: string;
  object: string | null;
  recordId: string | null;
  action: string | null;
  payload: unknown;
  expectedVersion: number | null;
  /** The record as the proposer read it when the model proposed, without the fields the reader may not read; null for a create. */
  seen: DataRecord | null;
  conversationId: string;
  proposedBy: string;
  decidedBy: string | null;
  decidedAt: string | null;
  expiresAt: string;
  result: unknown;
  error: unknown;
  createdAt: string;
  /** Whether the reader may approve it now: pending, ai:approve held, and not the proposer's own (unless allowSelfApproval). */
  canApprove: boolean;
  /** Whether the reader may reject it now: pending and ai:approve held. */
  canReject: boolean;
  /** The names of the users it mentions (proposedBy, decidedBy), id -> name. */
  people: Record<string, string>;
}

/** The row as the API shows it, before what depends on its reader (seen, canApprove, canReject). */
function rowView(row: DataRecord): Omit<PendingActionView, 'seen' | 'canApprove' | 'canReject' | 'people'> {
  return {
    id: String(row.id),
    status: String(row.status),
    kind: String(row.kind),
    object: (row.object as string | null) ?? null,
    recordId: (row.record_id as string | null) ?? null,
    action: (row.action as string | null) ?? null,
    payload: row.payload ?? null,
    expectedVersion: row.expected_version === null || row.expected_version === undefined ? null : Number(row.expected_version),
    conversationId: String(row.conversation_id),
    proposedBy: String(row.proposed_by),
    decidedBy: (row.decided_by as string | null) ?? null,
    decidedAt: (row.decided_at as string | null) ?? null,
    expiresAt: String(row.expires_at),
    result: row.result ?? null,
    error: row.error ?? null,
    createdAt: String(row.created_at),
  };
}

const isApprover = (p: Principal) => p.isAdmin || p.permissions.includes(APPROVE_KEY);
const system = (caller: Caller): DataContext => ({ environmentId: caller.environmentId, principal: null, system: true, requestId: caller.requestId });
const asCaller = (caller: Caller): DataContext => ({ environmentId: caller.environmentId, principal: caller.principal, requestId: caller.requestId });

export interface PendingActions {
  propose(ctx: { environmentId: string; owner: string; conversationId: string }, proposal: Proposal): Promise<string>;
  /** Removes proposals of a turn that did not complete (nothing half-stored). */
  discard(environmentId: string, ids: string[]): Promise<void>;
  list(caller: Caller, query: { status?: string; limit: number; offset: number }): Promise<{ items: PendingActionView[]; total: number }>;
  get(caller: Caller, id: string): Promise<PendingActionView>;
  approve(caller: Caller, id: string): Promise<PendingActionView>;
  reject(caller: Caller, id: string): Promise<PendingActionView>;
}

/**
 * The approval queue. Reading: a user sees the actions of their own conversations; ai:approve
 * holders see every one of the environment. The user in whose conversation an action was proposed
 * does not approve it herself, unless plugins.ai.allowSelfApproval. A decision takes the row from
 * pending in one conditional statement (its version), so two concurrent approvals apply it once. Approval
 * applies the mutation through the data engine as the approving user. Expiry, and approvals cut
 * off while applying (the process stopped), are settled lazily when the queue is read.
 */
export function createPendingActions(deps: {
  engine: DataEngine;
  actions: () => ActionsRegistry | undefined;
  ttlDays: number;
  allowSelfApproval: boolean;
  /** Field-level security of the reader (access.grants); absent, every field is readable. */
  readableFields?: (ctx: DataContext, object: string, fields: readonly string[]) => Promise<string[]>;
  /** Display names of users (auth.identity); absent, `people` is empty. */
  userNames?: (environmentId: string, userIds: readonly string[]) => Promise<Map<string, string>>;
}): PendingActions {
  const { engine } = deps;
  const mentioned = (row: DataRecord) => [String(row.proposed_by), ...(row.decided_by ? [String(row.decided_by)] : [])];

  async function namesOf(caller: Caller, rows: readonly DataRecord[]): Promise<Map<string, string>> {
    const ids = [...new Set(rows.flatMap(mentioned))];
    return deps.userNames && ids.length > 0 ? deps.userNames(caller.environmentId, ids) : new Map();
  }

  /** The action as this caller reads it: the seen record cut to the fields the caller may read, and what the caller may decide. */
  async function viewFor(caller: Caller, row: DataRecord, names?: Map<string, string>): Promise<PendingActionView> {
    const known = names ?? await namesOf(caller, [row]);
    let seen = (row.seen as DataRecord | null | undefined) ?? null;
    if (seen && deps.readableFields && row.object) {
      const readable = new Set(await deps.readableFields(asCaller(caller), String(row.object), Object.keys(seen)));
      seen = Object.fromEntries(Object.entries(seen).filter(([field]) => readable.has(field)));
    }
    const pending = row.status === 'pending' && Date.parse(String(row.expires_at)) > Date.now();
    const approver = isApprover(caller.principal);
    const own = String(row.proposed_by) === caller.principal.userId;
    const people = Object.fromEntries(mentioned(row).flatMap((id) => (known.get(id) ? [[id, known.get(id)!]] : [])));
    return { ...rowView(row), seen, canApprove: pending && approver && (deps.allowSelfApproval || !own), canReject: pending && approver, people };
  }

  async function sweep(caller: Caller): Promise<void> {
    const now = new Date().toISOString();
    const due = await engine.query(PENDING_OBJECT, { where: { status: 'pending', expires_at: { $lt: now } }, limit: SWEEP_BATCH }, system(caller), { total: false });
    for (const row of due.items) await settle(caller, row, { status: 'expired', decided_at: now });
    const cutOff = new Date(Date.now() - APPLY_STALE_MS).toISOString();
    const stuck = await engine.query(PENDING_OBJECT, { where: { status: 'applying', decided_at: { $lt: cutOff } }, limit: SWEEP_BATCH }, system(caller), { total: false });
    for (const row of stuck.items) await settle(caller, row, { status: 'failed', error: INTERRUPTED });
  }

  /** One conditional write on the row's version; a row changed meanwhile is left to whoever changed it. */
  async function settle(caller: Caller, row: DataRecord, patch: DataRecord): Promise<DataRecord> {
    try {
      return await engine.update(PENDING_OBJECT, String(row.id), patch, { expectedVersion: Number(row.version) }, system(caller));
    } catch (error) {
      if (!isCodedError(error) || error.code !== 'CONCURRENT_UPDATE') throw error;
      return engine.get(PENDING_OBJECT, String(row.id), {}, system(caller));
    }
  }

  /** The row when the caller may see it; NOT_FOUND exactly like a missing one otherwise. */
  async function visible(caller: Caller, id: string): Promise<DataRecord> {
    let row: DataRecord | null = null;
    try {
      row = await engine.get(PENDING_OBJECT, id, {}, system(caller));
    } catch (error) {
      if (!isCodedError(error) || error.code !== 'NOT_FOUND') throw error;
    }
    if (!row || (!isApprover(caller.principal) && String(row.owner_id) !== caller.principal.userId)) {
      throw codedError('NOT_FOUND', { what: `Pending action '${id.slice(0, 64)}'` });
    }
    return row;
  }

  /** pending -> `to`, in one conditional statement; a row decided meanwhile is AI_ACTION_DECIDED. */
  async function claim(caller: Caller, row: DataRecord, to: string): Promise<DataRecord> {
    const id = String(row.id);
    if (row.status === 'pending' && Date.parse(String(row.expires_at)) <= Date.now()) {
      await engine.update(PENDING_OBJECT, id, { status: 'expired', decided_at: new Date().toISOString() }, { expectedVersion: Number(row.version) }, system(caller)).catch(() => undefined);
      throw codedError('AI_ACTION_DECIDED', { id, status: 'expired' });
    }
    if (row.status !== 'pending') throw codedError('AI_ACTION_DECIDED', { id, status: String(row.status) });
    try {
      return await engine.update(PENDING_OBJECT, id, { status: to, decided_by: caller.principal.userId, decided_at: new Date().toISOString() }, { expectedVersion: Number(row.version) }, system(caller));
    } catch (error) {
      if (isCodedError(error) && error.code === 'CONCURRENT_UPDATE') throw codedError('AI_ACTION_DECIDED', { id, status: 'already being decided' });
      throw error;
    }
  }

  async function apply(caller: Caller, row: DataRecord): Promise<unknown> {
    const payload = (row.payload ?? {}) as { values?: Record<string, unknown> } & Record<string, unknown>;
    const object = String(row.object ?? '');
    const recordId = String(row.record_id ?? '');
    const expectedVersion = row.expected_version === null || row.expected_version === undefined ? undefined : Number(row.expected_version);
    const ctx = asCaller(caller);
    if (row.kind === 'action') {
      const registry = deps.actions();
      if (!registry) throw codedError('NOT_FOUND', { what: `Action '${String(row.action)}'` });
      if (row.record_id && expectedVersion !== undefined) {
        const current = await engine.get(object, recordId, {}, ctx);
        if (Number(current.version) !== expectedVersion) throw codedError('CONCURRENT_UPDATE', { expectedVersion, currentVersion: Number(current.version) });
      }
      const { result } = await registry.run(String(row.action), payload, caller.principal, { environmentId: caller.environmentId, requestId: caller.requestId });
      await engine.update(PENDING_OBJECT, String(row.id), { status: 'applied', result: { result: result ?? null } }, {}, system(caller));
      return result;
    }
    // The mutation and the applied mark commit together.
    return engine.transaction(ctx, async (trx) => {
      let result: Record<string, unknown>;
      if (row.kind === 'create') result = { recordId: String((await trx.create(object, payload.values ?? {}, ctx)).id) };
      else if (row.kind === 'update') result = { recordId, version: Number((await trx.update(object, recordId, payload.values ?? {}, expectedVersion === undefined ? {} : { expectedVersion }, ctx)).version) };
      else {
        await trx.delete(object, recordId, expectedVersion === undefined ? {} : { expectedVersion }, ctx);
        result = { recordId, deleted: true };
      }
      await trx.update(PENDING_OBJECT, String(row.id), { status: 'applied', result }, {}, system(caller));
      return result;
    });
  }

  return {
    async propose(ctx, proposal) {
      const row = await engine.create(PENDING_OBJECT, {
        owner_id: ctx.owner,
        status: 'pending',
        kind: proposal.kind,
        object: proposal.object,
        record_id: proposal.recordId,
        action: proposal.action,
        payload: proposal.payload,
        expected_version: proposal.expectedVersion,
        seen: proposal.seen,
        conversation_id: ctx.conversationId,
        proposed_by: ctx.owner,
        expires_at: new Date(Date.now() + deps.ttlDays * DAY).toISOString(),
      }, { environmentId: ctx.environmentId, principal: null, system: true });
      return String(row.id);
    },

    async discard(environmentId, ids) {
      for (const id of ids) await engine.delete(PENDING_OBJECT, id, {}, { environmentId, principal: null, system: true });
    },

    async list(caller, query) {
      await sweep(caller);
      const where: Record<string, unknown> = {};
      if (!isApprover(caller.principal)) where.owner_id = caller.principal.userId;
      if (query.status) where.status = query.status;
      const result = await engine.query(PENDING_OBJECT, { where, orderBy: [{ field: 'created_at', order: 'desc' }, { field: 'id', order: 'desc' }], limit: query.limit, offset: query.offset }, system(caller));
      const names = await namesOf(caller, result.items);
      return { items: await Promise.all(result.items.map((row) => viewFor(caller, row, names))), total: result.total ?? result.items.length };
    },

    async get(caller, id) {
      const row = await visible(caller, id);
      if (row.status === 'pending' && Date.parse(String(row.expires_at)) <= Date.now()) {
        return viewFor(caller, await settle(caller, row, { status: 'expired', decided_at: new Date().toISOString() }));
      }
      if (row.status === 'applying' && Date.parse(String(row.decided_at)) <= Date.now() - APPLY_STALE_MS) {
        return viewFor(caller, await settle(caller, row, { status: 'failed', error: INTERRUPTED }));
      }
      return viewFor(caller, row);
    },

    async approve(caller, id) {
      const row = await visible(caller, id);
      // A second pair of eyes: the proposer's own approval is refused unless the setup allows it.
      if (!deps.allowSelfApproval && String(row.proposed_by) === caller.principal.userId) throw codedError('AI_SELF_APPROVAL', { id });
      const claimed = await claim(caller, row, 'applying');
      try {
        await apply(caller, claimed);
      } catch (error) {
        const coded = isCodedError(error) ? error : codedError('INTERNAL', { requestId: caller.requestId ?? '' });
        await engine.update(PENDING_OBJECT, id, { status: 'failed', error: { code: coded.code, message: coded.message } }, {}, system(caller));
        throw error;
      }
      return viewFor(caller, await engine.get(PENDING_OBJECT, id, {}, system(caller)));
    },

    async reject(caller, id) {
      const row = await visible(caller, id);
      return viewFor(caller, await claim(caller, row, 'rejected'));
    },
  };
}
