import type { AccessGrants } from '../../capabilities/accessGrants.ts';
import type { ActionsRegistry } from '../../capabilities/actionsRegistry.ts';
import type { Principal } from '../../capabilities/authSession.ts';
import type { DataContext, DataEngine, DataRecord } from '../../capabilities/dataEngine.ts';
import type { FlowsRunner } from '../../capabilities/flowsRunner.ts';
import type { JobsQueue } from '../../capabilities/jobsQueue.ts';
import type { MetadataRegistry } from '../../capabilities/metadataRegistry.ts';
import type { NotificationsSend } from '../../capabilities/notificationsSend.ts';
import type { Logger } from '../../kernel/logger.ts';
import { codedError, isCodedError } from '../../kernel/errors.ts';
import { caller, denied, invalid, system } from './approvalContext.ts';
import { createApprovalReads } from './approvalReads.ts';
import type { ApprovalOutcome } from '../../metadata/approvalTypes.ts';
import { readDecisionBody, type DecisionBody } from './decisionBody.ts';
import { runOutcome } from './runOutcome.ts';
import {
  assigneeList, ATTACHMENT_OBJECT, DECISION_OBJECT, ESCALATE_JOB, openKey, REMIND_INTERVAL_MS, REQUEST_OBJECT, type RequestAction,
} from './names.ts';
import { positionMembers } from './positionMembers.ts';
import { snapshotOf, type ProcessCatalog, type ProcessSnapshot } from './processCatalog.ts';
import { currentVotes } from './requestView.ts';
import { buildSlate, replaceApprover, tally, type StepSlate } from './stepSlate.ts';

export interface ApprovalDeps {
  engine: DataEngine;
  metadata: MetadataRegistry;
  access: AccessGrants;
  catalog: ProcessCatalog;
  jobs: JobsQueue;
  notify: NotificationsSend;
  actions: ActionsRegistry | undefined;
  flows?: FlowsRunner | undefined;
  /** Known users: a reassign to an id that names no user is refused (unchecked without auth.identity). */
  knownUsers?: (environmentId: string, userIds: readonly string[]) => Promise<string[]>;
  /** The display names of users (at most 500 ids), for `people`; absent without auth.identity. */
  userNames?: (environmentId: string, userIds: readonly string[]) => Promise<Map<string, string>>;
  log: Logger;
}

/** After a commit: what to tell whom, which job to queue, which outcome to run. */
interface Followups {
  notify: Array<{ userIds: string[]; title: string; body: string }>;
  sla?: { step: number; cycle: number; dueAt: string };
  outcome?: { outcome: ApprovalOutcome; kind: 'onApprove' | 'onReject' };
}

const HOUR = 3_600_000;

/**
 * The approval engine: every change to a request runs in one transaction that first takes the
 * request row's lock (a write to it), then reads its decisions: two approvers deciding at once are
 * counted one after the other, and one approver deciding twice counts once (a unique vote key backs it).
 */
export function createApprovalService(deps: ApprovalDeps) {
  const { engine, catalog, log } = deps;
  const reads = createApprovalReads(deps);
  const { decisionsOf, visible, view } = reads;

  async function slateFor(reader: DataEngine, env: string, definition: ProcessSnapshot, index: number, submitter: string): Promise<StepSlate> {
    const step = definition.steps[index]!;
    const positions = [...step.positions, ...step.groups.flatMap((g) => g.positions)];
    return buildSlate(step, index, await positionMembers(reader, system(env), positions), submitter);
  }

  async function record(tx: DataEngine, env: string, request: DataRecord, kind: string, userId: string | null, body: DecisionBody | null, detail: object | null, vote = false): Promise<DataRecord> {
    const decision = await tx.create(DECISION_OBJECT, {
      request_id: request.id, cycle: request.cycle, step: request.step, user_id: userId, kind, owner_id: request.owner_id,
      ...(vote ? { vote_key: `${String(request.id)}:${String(request.cycle)}:${String(request.step)}:${userId}` } : {}),
      ...(body?.comment ? { comment: body.comment } : {}),
      ...(detail ? { detail } : {}),
    }, system(env));
    for (const file of body?.attachments ?? []) {
      await tx.create(ATTACHMENT_OBJECT, { owner_id: request.owner_id, request_id: request.id, decision_id: decision.id, name: file.name, content_type: file.contentType, size: file.size, content: file.content }, system(env));
    }
    return decision;
  }

  /** Enter step `index`: its slate, its SLA, and who to tell. */
  async function enterStep(tx: DataEngine, env: string, definition: ProcessSnapshot, index: number, submitter: string, cycle: number, followups: Followups, requestLabel: string): Promise<DataRecord> {
    const slate = await slateFor(tx, env, definition, index, submitter);
    const step = definition.steps[index]!;
    const dueAt = step.slaHours ? new Date(Date.now() + step.slaHours * HOUR).toISOString() : null;
    if (dueAt) followups.sla = { step: index, cycle, dueAt };
    followups.notify.push({ userIds: slate.users, title: `Approval requested: ${requestLabel}`, body: `Your decision is asked on step ${step.label} of ${definition.label}.` });
    return { step: index, approvers: slate, assignees: assigneeList(slate.users), due_at: dueAt, escalated: false };
  }

  async function runFollowups(env: string, request: DataRecord, followups: Followups, principal: Principal | null): Promise<void> {
    for (const n of followups.notify) {
      if (n.userIds.length === 0) continue;
      try {
        await deps.notify.send({ environmentId: env, to: { userIds: n.userIds.slice(0, 100) }, channels: ['in_app'], title: n.title.slice(0, 200), body: n.body, record: { object: REQUEST_OBJECT, id: String(request.id) } });
      } catch (error) {
        log.warn({ err: error, requestId: request.id }, 'approvals: a notification could not be sent');
      }
    }
    if (followups.sla) {
      await deps.jobs.add(ESCALATE_JOB, { requestId: request.id, cycle: followups.sla.cycle, step: followups.sla.step }, {
        environmentId: env, runAt: followups.sla.dueAt, idempotencyKey: `${String(request.id)}:${followups.sla.cycle}:${followups.sla.step}`,
      });
    }
    if (followups.outcome && principal) {
      const { outcome, kind } = followups.outcome;
      try {
        await runOutcome(deps, env, request, outcome, kind, principal);
      } catch (error) {
        const code = isCodedError(error) ? error.code : 'INTERNAL';
        log.warn({ err: error, requestId: request.id, action: outcome.action, flow: outcome.flow }, `approvals: the ${kind} outcome failed`);
        await engine.create(DECISION_OBJECT, { owner_id: request.owner_id, request_id: request.id, cycle: request.cycle, step: request.step, user_id: principal.userId, kind: 'outcome_failed', detail: { outcome: kind, ...(outcome.flow ? { flow: outcome.flow } : { action: outcome.action }), code } }, system(env));
      }
    }
  }

  /** Lock the request row (a write to it), then read it and its decisions inside the transaction. */
  async function locked(tx: DataEngine, env: string, principal: Principal, id: string) {
    await visible(env, principal, id, tx);
    const request = await tx.update(REQUEST_OBJECT, id, {}, {}, system(env));
    return { request, decisions: await decisionsOf(tx, env, id) };
  }

  async function submit(env: string, principalIn: Principal | null, body: { process: string; recordId: string }) {
    const principal = caller(principalIn);
    const process = await catalog.get(env, body.process);
    if (!process) throw codedError('NOT_FOUND', { what: `Approval process '${body.process.slice(0, 64)}'` });
    const as: DataContext = { environmentId: env, principal };
    // Hidden or missing: the same 404 as GET /data would answer.
    await engine.get(process.object, body.recordId, {}, as);
    const explained = await deps.access.explain(env, principal.userId, process.object, body.recordId);
    if (!explained.edit.allowed) throw denied(`edit on ${process.object} '${body.recordId}'`);
    if (process.compiledWhen) {
      const full = await engine.get(process.object, body.recordId, {}, system(env));
      const user = { id: principal.userId, positions: principal.positions, organizationId: principal.organizationId ?? null };
      if (process.compiledWhen.evaluate({ input: {}, record: full, context: { now: new Date(), user } }) !== true) {
        throw invalid(`the record does not meet the entry condition of process '${process.name}' (${process.when})`);
      }
    }
    const definition = snapshotOf(process);
    // Later steps resolve their approvers when reached.
    const first = await slateFor(engine, env, definition, 0, principal.userId);
    if (first.users.length === 0) throw codedError('APPROVAL_NO_APPROVERS', { step: definition.steps[0]!.name, process: process.name });
    const followups: Followups = { notify: [] };
    const key = openKey(process.object, body.recordId);
    const created = await engine.transaction(system(env), async (tx) => {
      const open = await tx.query(REQUEST_OBJECT, { where: { open_key: key }, limit: 1, select: ['id'] }, system(env), { total: false, findHooks: false });
      if (open.items.length > 0) throw invalid(`record ${process.object} '${body.recordId}' already has an open approval request (${String(open.items[0]!.id)})`, { requestId: String(open.items[0]!.id) });
      const step = await enterStep(tx, env, definition, 0, principal.userId, 1, followups, process.label);
      const request = await tx.create(REQUEST_OBJECT, {
        process: process.name, record_object: process.object, record_id: body.recordId, status: 'pending', cycle: 1, revisions: 0,
        open_key: key, definition, owner_id: principal.userId, ...step,
      }, system(env));
      await record(tx, env, request, 'submit', principal.userId, null, null);
      return request;
    });
    await runFollowups(env, created, followups, principal);
    return view(env, String(created.id));
  }

  function mustBePending(request: DataRecord): void {
    if (request.status !== 'pending') throw invalid(`approval request ${String(request.id)} is ${String(request.status)}, not pending`, { status: request.status });
  }

  function mustBeApprover(request: DataRecord, principal: Principal): StepSlate {
    const slate = request.approvers as StepSlate;
    if (!slate.users.includes(principal.userId)) throw denied(`an approver of step '${slate.name}' of this request`);
    return slate;
  }

  const isSubmitter = (request: DataRecord, principal: Principal) => String(request.owner_id) === principal.userId;

  async function act(env: string, principalIn: Principal | null, id: string, action: RequestAction, rawBody: unknown) {
    const principal = caller(principalIn);
    const body = readDecisionBody(action, rawBody);
    const followups: Followups = { notify: [] };
    const after = await engine.transaction(system(env), async (tx) => {
      const { request, decisions } = await locked(tx, env, principal, id);
      const definition = request.definition as ProcessSnapshot;
      const label = definition.label;
      const submitter = String(request.owner_id);
      const set = (patch: DataRecord) => tx.update(REQUEST_OBJECT, id, patch, {}, system(env));
      switch (action) {
        case 'approve':
        case 'reject': {
          const slate = mustBeApprover(request, principal);
          mustBePending(request);
          const votes = currentVotes(request, decisions);
          if (votes.some((v) => v.userId === principal.userId)) throw invalid(`you already decided step '${slate.name}' of this request`, { status: request.status });
          await record(tx, env, request, action, principal.userId, body, null, true);
          const counted = tally(slate, [...votes, { userId: principal.userId, kind: action }]);
          const done = { open_key: null, assignees: '', due_at: null, completed_at: new Date().toISOString() };
          if (counted.rejected) {
            if (definition.onReject) followups.outcome = { outcome: definition.onReject, kind: 'onReject' };
            followups.notify.push({ userIds: [submitter], title: `Rejected: ${label}`, body: `Your request was rejected on step ${slate.label}.` });
            return set({ status: 'rejected', ...done });
          }
          if (!counted.complete) return request;
          const next = Number(request.step) + 1;
          if (next >= definition.steps.length) {
            if (definition.onApprove) followups.outcome = { outcome: definition.onApprove, kind: 'onApprove' };
            followups.notify.push({ userIds: [submitter], title: `Approved: ${label}`, body: 'Your request was approved.' });
            return set({ status: 'approved', ...done });
          }
          return set(await enterStep(tx, env, definition, next, submitter, Number(request.cycle), followups, label));
        }
        case 'send-back': {
          const slate = mustBeApprover(request, principal);
          mustBePending(request);
          const revisions = Number(request.revisions);
          if (revisions >= definition.maxRevisions) throw invalid(`approval request ${id} was sent back ${revisions} time(s) already; maxRevisions is ${definition.maxRevisions}: approve or reject it`, { status: request.status, revisions, maxRevisions: definition.maxRevisions });
          await record(tx, env, request, 'send_back', principal.userId, body, null);
          followups.notify.push({ userIds: [submitter], title: `Sent back: ${label}`, body: `Your request was sent back for revision on step ${slate.label}.${body.comment ? ` ${body.comment}` : ''}`.slice(0, 4000) });
          return set({ status: 'sent_back', revisions: revisions + 1, assignees: '', due_at: null });
        }
        case 'request-info': {
          if (isSubmitter(request, principal)) {
            // The submitter's answer goes to the approvers still deciding.
            mustBePending(request);
            const slate = request.approvers as StepSlate;
            await record(tx, env, request, 'request_info', principal.userId, body, { answer: true });
            followups.notify.push({ userIds: tally(slate, currentVotes(request, decisions)).waitingFor, title: `Information provided: ${label}`, body: `The submitter answers: ${body.comment ?? ''}`.slice(0, 4000) });
            return request;
          }
          const slate = mustBeApprover(request, principal);
          mustBePending(request);
          await record(tx, env, request, 'request_info', principal.userId, body, null);
          followups.notify.push({ userIds: [submitter], title: `Information requested: ${label}`, body: `An approver of step ${slate.label} asks: ${body.comment ?? ''}`.slice(0, 4000) });
          return request;
        }
        case 'reassign': {
          mustBePending(request);
          const slate = request.approvers as StepSlate;
          const to = body.to!;
          const from = body.from ?? principal.userId;
          if (from !== principal.userId && !principal.isAdmin) throw denied('admin (only admins reassign another approver\'s place)');
          if (!principal.isAdmin) mustBeApprover(request, principal);
          if (!slate.users.includes(from)) throw invalid(`user '${from}' is not an approver of step '${slate.name}'`);
          if (currentVotes(request, decisions).some((v) => v.userId === from)) throw invalid(`user '${from}' already decided step '${slate.name}'`);
          if (to === submitter) throw invalid('the submitter cannot approve its own request');
          if (slate.users.includes(to)) throw invalid(`user '${to}' is already an approver of step '${slate.name}'`);
          if (deps.knownUsers && !(await deps.knownUsers(env, [to])).includes(to)) {
            throw codedError('VALIDATION_ERROR', { summary: `to: no user '${to}' in this environment`, errors: [{ path: 'to', message: 'names no user' }] });
          }
          const moved = replaceApprover(slate, from, to);
          await record(tx, env, request, 'reassign', principal.userId, body, { from, to });
          followups.notify.push({ userIds: [to], title: `Approval requested: ${label}`, body: `A decision on step ${slate.label} was reassigned to you.` });
          return set({ approvers: moved, assignees: assigneeList(moved.users) });
        }
        case 'remind': {
          if (!isSubmitter(request, principal) && !principal.isAdmin) throw denied('the submitter of this request or an admin');
          mustBePending(request);
          const last = request.reminded_at ? Date.parse(String(request.reminded_at)) : 0;
          const wait = last + REMIND_INTERVAL_MS - Date.now();
          if (wait > 0) throw codedError('RATE_LIMITED', { retryAfter: Math.ceil(wait / 1000) });
          const waiting = tally(request.approvers as StepSlate, currentVotes(request, decisions)).waitingFor;
          await record(tx, env, request, 'remind', principal.userId, body, { to: waiting });
          followups.notify.push({ userIds: waiting, title: `Reminder: ${label}`, body: `Your decision is still awaited on step ${(request.approvers as StepSlate).label}.` });
          return set({ reminded_at: new Date().toISOString() });
        }
        case 'recall': {
          if (!isSubmitter(request, principal) && !principal.isAdmin) throw denied('the submitter of this request or an admin');
          if (request.status !== 'pending' && request.status !== 'sent_back') throw invalid(`approval request ${id} is ${String(request.status)}; only a pending or sent-back request can be recalled`, { status: request.status });
          await record(tx, env, request, 'recall', principal.userId, body, null);
          return set({ status: 'recalled', open_key: null, assignees: '', due_at: null, completed_at: new Date().toISOString() });
        }
        case 'resubmit': {
          if (!isSubmitter(request, principal)) throw denied('the submitter of this request');
          if (request.status !== 'sent_back') throw invalid(`approval request ${id} is ${String(request.status)}; only a sent-back request can be resubmitted`, { status: request.status });
          const cycle = Number(request.cycle) + 1;
          await record(tx, env, request, 'resubmit', principal.userId, body, null);
          return set({ status: 'pending', cycle, ...(await enterStep(tx, env, definition, 0, submitter, cycle, followups, label)) });
        }
      }
    });
    await runFollowups(env, after, followups, principal);
    return view(env, id);
  }

  /** SLA breach: the step's undecided places go to the escalation target (or its approvers are reminded). */
  async function escalate(env: string, data: { requestId: string; cycle: number; step: number }): Promise<string> {
    const followups: Followups = { notify: [] };
    const outcome = await engine.transaction(system(env), async (tx) => {
      let request: DataRecord;
      try {
        request = await tx.update(REQUEST_OBJECT, data.requestId, {}, {}, system(env));
      } catch (error) {
        if (isCodedError(error) && error.code === 'NOT_FOUND') return 'gone';
        throw error;
      }
      if (request.status !== 'pending' || Number(request.cycle) !== data.cycle || Number(request.step) !== data.step || request.escalated === true) return 'moved on';
      if (request.due_at && Date.parse(String(request.due_at)) > Date.now()) {
        // Run early (another process's clock): come back at the due time.
        followups.sla = { step: data.step, cycle: data.cycle, dueAt: String(request.due_at) };
        return 'not due';
      }
      const definition = request.definition as ProcessSnapshot;
      const step = definition.steps[data.step]!;
      const slate = request.approvers as StepSlate;
      const decisions = await decisionsOf(tx, env, data.requestId);
      const counted = tally(slate, currentVotes(request, decisions));
      const submitter = String(request.owner_id);
      let targets: string[] = [];
      if (step.escalateTo) {
        const members = await positionMembers(tx, system(env), step.escalateTo.positions);
        targets = [...new Set([...step.escalateTo.users, ...step.escalateTo.positions.flatMap((p) => members.get(p) ?? [])])].filter((u) => u !== submitter && !slate.users.includes(u)).sort();
      }
      if (targets.length === 0) {
        await record(tx, env, request, 'escalate', null, null, { reminded: counted.waitingFor });
        followups.notify.push({ userIds: counted.waitingFor, title: `Overdue: ${definition.label}`, body: `The SLA of step ${step.label} is over; your decision is awaited.` });
        await tx.update(REQUEST_OBJECT, data.requestId, { escalated: true }, {}, system(env));
        return 'reminded';
      }
      // Each undecided place goes to a target in turn; extra targets join the step.
      let moved = slate;
      counted.waitingFor.forEach((from, i) => { if (i < targets.length) moved = replaceApprover(moved, from, targets[i]!); });
      const added = targets.slice(counted.waitingFor.length);
      if (added.length) moved = { ...moved, users: [...new Set([...moved.users, ...added])].sort() };
      await record(tx, env, request, 'escalate', null, null, { from: counted.waitingFor, to: targets });
      followups.notify.push({ userIds: targets, title: `Escalated to you: ${definition.label}`, body: `Step ${step.label} is overdue and was escalated to you.` });
      await tx.update(REQUEST_OBJECT, data.requestId, { approvers: moved, assignees: assigneeList(moved.users), escalated: true }, {}, system(env));
      return 'reassigned';
    });
    if (followups.sla) {
      await deps.jobs.add(ESCALATE_JOB, data, { environmentId: env, runAt: followups.sla.dueAt, idempotencyKey: `${data.requestId}:${data.cycle}:${data.step}:${followups.sla.dueAt}` });
    } else if (followups.notify.length) await runFollowups(env, { id: data.requestId }, followups, null);
    return outcome;
  }

  return { submit, act, escalate, list: reads.list, get: reads.get, attachment: reads.attachment, forRecord: reads.forRecord };
}

export type ApprovalService = ReturnType<typeof createApprovalService>;
