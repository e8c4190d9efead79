import type { ActionsRegistry } from '../../capabilities/actionsRegistry.ts';
import type { Principal } from '../../capabilities/authSession.ts';
import type { DataContext, DataEngine } from '../../capabilities/dataEngine.ts';
import type { EmailSend } from '../../capabilities/emailSend.ts';
import type { NotificationsSend } from '../../capabilities/notificationsSend.ts';
import { codedError } from '../../kernel/errors.ts';
import { FLOW_LIMITS, type FlowAssignment, type FlowScope, type ResolvedFlow, type ResolvedFlowStep } from '../../metadata/flowTypes.ts';
import { refuseUrl, type AllowEntry } from './httpAllow.ts';

export interface StepDeps {
  engine: DataEngine;
  actions: () => ActionsRegistry | undefined;
  email: () => EmailSend | undefined;
  notifications: () => NotificationsSend | undefined;
  httpAllow: readonly AllowEntry[];
}

export interface StepRun {
  /** The run's id: with the step's, the idempotency key of a step with external effects. */
  runId: string;
  flow: ResolvedFlow;
  scope: FlowScope;
  data: DataContext;
  principal: Principal;
  environmentId: string;
}

function values(assignments: readonly FlowAssignment[] | undefined, scope: FlowScope): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { field, expression } of assignments ?? []) out[field] = expression.evaluate(scope);
  return out;
}

function text(value: unknown, what: string, step: ResolvedFlowStep): string {
  if (typeof value === 'string' && value.length > 0) return value;
  throw codedError('VALIDATION_ERROR', { summary: `step '${step.id}': ${what} is ${value === null || value === undefined ? 'empty' : `not a string (${typeof value})`}`, step: step.id });
}

function recordId(step: ResolvedFlowStep, scope: FlowScope): string {
  return text(step.recordId!.evaluate(scope), 'recordId', step);
}

async function readBody(response: Response): Promise<unknown> {
  const reader = response.body?.getReader();
  if (!reader) return null;
  const decoder = new TextDecoder();
  let body = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    body += decoder.decode(value, { stream: true });
    if (body.length > FLOW_LIMITS.httpBodyChars) {
      await reader.cancel();
      body = body.slice(0, FLOW_LIMITS.httpBodyChars);
      return body;
    }
  }
  body += decoder.decode();
  if ((response.headers.get('content-type') ?? '').includes('json')) {
    try { return JSON.parse(body); } catch { return body; }
  }
  return body;
}

/** The idempotency key of one step of one run, sent by the http step as `Idempotency-Key`. */
export function stepKey(runId: string, stepId: string): string {
  return `${runId}:${stepId}`;
}

/**
 * Runs one step that is not a branch or a wait and answers its output. Every read and write goes
 * through the data engine with the run's data context: as the caller (row- and field-level
 * security apply) or as the system.
 */
export async function runStep(deps: StepDeps, step: ResolvedFlowStep, run: StepRun): Promise<unknown> {
  const { scope, data } = run;
  switch (step.type) {
    case 'get':
      return deps.engine.get(step.object!, recordId(step, scope), {}, data);
    case 'query': {
      const where = values(step.where, scope);
      const result = await deps.engine.query(step.object!, {
        ...(Object.keys(where).length > 0 ? { where } : {}),
        ...(step.orderBy && step.orderBy.length > 0 ? { orderBy: step.orderBy } : {}),
        limit: step.limit,
      }, data);
      return { records: result.items, count: result.total ?? result.items.length };
    }
    case 'history': {
      const page = await deps.engine.history(step.object!, recordId(step, scope), { limit: step.limit }, data);
      return { entries: page.items, count: page.items.length };
    }
    case 'create':
      return deps.engine.create(step.object!, values(step.assignments, scope), data);
    case 'update':
      return deps.engine.update(step.object!, recordId(step, scope), values(step.assignments, scope), {}, data);
    case 'delete': {
      const id = recordId(step, scope);
      await deps.engine.delete(step.object!, id, {}, data);
      return { id };
    }
    case 'action': {
      const registry = deps.actions();
      if (!registry) throw codedError('FLOW_STEP_FAILED', { step: step.id, flow: run.flow.name, reason: 'the actions plugin is disabled' });
      const body: Record<string, unknown> = {};
      for (const { name, expression } of step.input ?? []) {
        const value = expression.evaluate(scope);
        if (value !== null && value !== undefined) body[name] = value;
      }
      if (step.recordId) body.recordId = recordId(step, scope);
      const { result } = await registry.run(step.action!, body, run.principal, { environmentId: run.environmentId, ...(data.requestId ? { requestId: data.requestId } : {}) });
      return result;
    }
    case 'email': {
      const email = deps.email();
      if (!email) throw codedError('FLOW_STEP_FAILED', { step: step.id, flow: run.flow.name, reason: 'no plugin provides email.send (enable the email plugin)' });
      const to = text(step.to!.evaluate(scope), 'to', step);
      const html = step.html?.evaluate(scope);
      // A record or time-relative flow mails about its record: the record's timeline shows it.
      const about = run.flow.recordObject && scope.record && scope.record.id !== undefined && scope.record.id !== null
        ? { about: { environmentId: run.environmentId, object: run.flow.recordObject, recordId: String(scope.record.id), sentBy: run.principal.kind === 'system' ? null : run.principal.userId } }
        : {};
      await email.send({ to, environmentId: run.environmentId, subject: text(step.subject!.evaluate(scope), 'subject', step), text: text(step.text!.evaluate(scope), 'text', step), ...(typeof html === 'string' && html ? { html } : {}), ...about });
      return { to };
    }
    case 'notify': {
      const notifications = deps.notifications();
      if (!notifications) throw codedError('FLOW_STEP_FAILED', { step: step.id, flow: run.flow.name, reason: 'no plugin provides notifications.send (enable the notifications plugin)' });
      const to = step.to!.evaluate(scope);
      const userIds = (Array.isArray(to) ? to : [to]).filter((v): v is string => typeof v === 'string' && v.length > 0);
      if (userIds.length === 0) throw codedError('VALIDATION_ERROR', { summary: `step '${step.id}': to names no user`, step: step.id });
      const link = step.link?.evaluate(scope);
      return notifications.send({
        environmentId: run.environmentId, to: { userIds }, channels: step.channels ?? ['in_app'],
        title: text(step.title!.evaluate(scope), 'title', step), body: text(step.body!.evaluate(scope), 'body', step),
        ...(typeof link === 'string' && link ? { link } : {}),
      });
    }
    case 'http': {
      const url = text(step.url!.evaluate(scope), 'url', step);
      const refused = refuseUrl(url, deps.httpAllow);
      if (refused) throw codedError('FLOW_HTTP_REFUSED', { url: url.slice(0, 300), reason: refused, fix: 'add the URL prefix to plugins.flows.http.allow in the runtime config, or call an allowed URL', step: step.id });
      const headers: Record<string, string> = {};
      for (const { name, expression } of step.headers ?? []) headers[name] = text(expression.evaluate(scope), `header ${name}`, step);
      // The same key each time this step of this run is tried (a retry, a run taken over after its
      // process died): the receiver can tell a repeat from a new request. A declared header wins.
      if (!Object.keys(headers).some((h) => h.toLowerCase() === 'idempotency-key')) headers['Idempotency-Key'] = stepKey(run.runId, step.id);
      let body: string | undefined;
      if (step.body) {
        body = JSON.stringify(step.body.evaluate(scope) ?? null);
        if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
      }
      let response: Response;
      try {
        // Redirects are not followed: the target would escape the allow-list.
        response = await fetch(url, { method: step.method, headers, ...(body !== undefined ? { body } : {}), redirect: 'manual', signal: AbortSignal.timeout(step.timeoutMs ?? FLOW_LIMITS.httpDefaultTimeoutMs) });
      } catch (error) {
        const timedOut = (error as Error).name === 'TimeoutError';
        throw codedError('FLOW_STEP_FAILED', { step: step.id, flow: run.flow.name, reason: timedOut ? `no answer from ${new URL(url).origin} within ${step.timeoutMs} ms` : `the request to ${new URL(url).origin} failed: ${(error as Error).message}` });
      }
      return { status: response.status, contentType: response.headers.get('content-type'), body: await readBody(response) };
    }
    default:
      throw new Error(`step type ${step.type} is run by the runner`);
  }
}
