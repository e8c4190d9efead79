import type { FastifyRequest } from 'fastify';
import { auditSourceOf, type AuditRecord } from '../../capabilities/auditRecord.ts';
import type { HttpRoutes } from '../../capabilities/httpRoutes.ts';
import { codedError } from '../../kernel/errors.ts';
import type { ResolvedApprovalProcess } from '../../metadata/approvalTypes.ts';
import type { ApprovalService } from './createApprovalService.ts';
import { decisionBodySchema } from './decisionBody.ts';
import { MAX_ATTACHMENT_BYTES, MAX_ATTACHMENTS, REQUEST_ACTIONS } from './names.ts';
import type { ProcessCatalog } from './processCatalog.ts';

const tags = ['approvals'];
const ID = { type: 'string', pattern: '^[A-Za-z0-9_:-][A-Za-z0-9._:-]{0,63}$' };
const idParams = { type: 'object', properties: { id: ID }, required: ['id'] };
const users = { type: 'array', items: { type: 'string' }, maxItems: 100 };
const positions = { type: 'array', items: { type: 'string' }, maxItems: 20 };
const outcome = { type: 'object', properties: { action: { type: 'string' }, flow: { type: 'string' }, input: { type: 'object' } }, additionalProperties: false };

/** The body of POST /approvals/processes (the loader checks the rest and names each problem's path). */
const processBody = {
  type: 'object',
  properties: {
    name: { type: 'string', maxLength: 63 },
    label: { type: 'string', maxLength: 200 },
    description: { type: 'string', maxLength: 2000 },
    object: { type: 'string', maxLength: 100 },
    when: { type: 'string', maxLength: 2000 },
    maxRevisions: { type: 'integer', minimum: 0, maximum: 100 },
    steps: {
      type: 'array', minItems: 1, maxItems: 20,
      items: {
        type: 'object',
        properties: {
          name: { type: 'string' }, label: { type: 'string' },
          approvers: {
            type: 'object',
            properties: {
              users, positions,
              groups: { type: 'array', maxItems: 20, items: { type: 'object', properties: { name: { type: 'string' }, label: { type: 'string' }, users, positions, minApprovals: { type: 'integer' } }, required: ['name'], additionalProperties: false } },
            },
            additionalProperties: false,
          },
          minApprovals: { type: 'integer' },
          signOff: { type: 'string', enum: ['quorum', 'perGroup'] },
          slaHours: { type: 'number' },
          escalateTo: { type: 'object', properties: { users, positions }, additionalProperties: false },
        },
        required: ['name', 'approvers'],
        additionalProperties: false,
      },
    },
    onApprove: outcome,
    onReject: outcome,
  },
  required: ['name', 'object', 'steps'],
  additionalProperties: false,
};

const requestSummary = {
  type: 'object',
  additionalProperties: true,
  properties: {
    id: { type: 'string' }, process: { type: 'string' }, processLabel: { type: 'string' }, object: { type: 'string' }, recordId: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'approved', 'rejected', 'sent_back', 'recalled'] },
    step: { type: 'object', properties: { index: { type: 'integer' }, name: { type: 'string' }, label: { type: 'string' } } },
    progress: { type: 'string' }, cycle: { type: 'integer' }, revisions: { type: 'integer' }, maxRevisions: { type: 'integer' },
    submittedBy: { type: 'string' }, submittedAt: { type: 'string' }, dueAt: { type: ['string', 'null'] }, escalated: { type: 'boolean' }, completedAt: { type: ['string', 'null'] },
    people: { type: 'object', additionalProperties: { type: 'string' } },
  },
  required: ['id', 'process', 'status', 'step', 'progress'],
};
const requestDetail = {
  ...requestSummary,
  properties: { ...requestSummary.properties, steps: { type: 'array', items: { type: 'object', additionalProperties: true } }, decisions: { type: 'array', items: { type: 'object', additionalProperties: true } } },
  required: [...requestSummary.required, 'steps', 'decisions'],
};

function processView(process: ResolvedApprovalProcess, id: string | null) {
  const { compiledWhen: _c, source, ...rest } = process;
  return { ...rest, id, origin: source === 'api' ? 'api' : 'metadata' };
}

const env = (request: FastifyRequest) => request.environmentId;

/** Request actions that decide (or withdraw) a request: recorded in the audit trail. */
const DECISIONS: ReadonlySet<string> = new Set(['approve', 'reject', 'send-back', 'recall']);

export function addApprovalRoutes(routes: HttpRoutes, service: ApprovalService, catalog: ProcessCatalog, audit?: AuditRecord): void {
  routes.add({
    method: 'GET', path: '/approvals/processes', tags,
    summary: 'Approval processes: declared in approvals/<name>.json and created through the API, with the quorums clamped at load',
    schema: { response: { 200: { type: 'object', properties: { items: { type: 'array', items: { type: 'object', additionalProperties: true } } }, required: ['items'] } } },
    handler: async (request) => {
      if (!request.principal) throw codedError('UNAUTHENTICATED');
      return { items: (await catalog.list(env(request))).map(({ process, id }) => processView(process, id)) };
    },
  });

  routes.add({
    method: 'POST', path: '/approvals/processes', tags, successStatus: 201,
    summary: 'Create an approval process (admins): the shape of approvals/<name>.json, checked by the same rules',
    schema: { body: processBody, response: { 201: { type: 'object', additionalProperties: true } } },
    handler: async (request, reply) => {
      const principal = request.principal;
      if (!principal || principal.kind === 'system') throw codedError('UNAUTHENTICATED');
      if (!principal.isAdmin) throw codedError('PERMISSION_DENIED', { permission: 'admin (approval processes are created by admins)' });
      const process = await catalog.create(env(request), request.body, principal.userId);
      reply.code(201);
      return processView(process, null);
    },
  });

  routes.add({
    method: 'GET', path: '/approvals/requests', tags,
    summary: 'Approval requests: box=mine (submitted by the caller, default), assigned (pending on the caller), all (admins)',
    schema: {
      querystring: {
        type: 'object',
        properties: {
          box: { type: 'string', enum: ['mine', 'assigned', 'all'], default: 'mine' },
          status: { type: 'string', enum: ['pending', 'approved', 'rejected', 'sent_back', 'recalled'] },
          limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
          cursor: { type: 'string', maxLength: 2000 },
        },
        additionalProperties: false,
      },
      response: { 200: { type: 'object', properties: { items: { type: 'array', items: requestSummary }, nextCursor: { type: ['string', 'null'] } }, required: ['items'] } },
    },
    handler: (request) => service.list(env(request), request.principal, request.query as Parameters<ApprovalService['list']>[2]),
  });

  routes.add({
    method: 'POST', path: '/approvals/requests', tags, successStatus: 201, errorStatuses: [404, 409],
    summary: 'Submit a record to an approval process; the caller must be able to read and edit it',
    schema: {
      body: { type: 'object', properties: { process: { type: 'string', maxLength: 63 }, recordId: ID }, required: ['process', 'recordId'], additionalProperties: false },
      response: { 201: requestDetail },
    },
    handler: async (request, reply) => {
      const view = await service.submit(env(request), request.principal, request.body as { process: string; recordId: string });
      reply.code(201);
      return view;
    },
  });

  routes.add({
    method: 'GET', path: '/approvals/records/:object/:recordId', tags, errorStatuses: [404],
    summary: "One record's approval state for a caller who may read it: its lock (the pending request) and the record's requests the caller may see, newest first",
    schema: {
      params: { type: 'object', properties: { object: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,99}$' }, recordId: ID }, required: ['object', 'recordId'] },
      response: {
        200: {
          type: 'object',
          properties: {
            lock: {
              type: ['object', 'null'],
              properties: {
                requestId: { type: 'string' }, process: { type: 'string' }, processLabel: { type: 'string' },
                step: { type: 'object', properties: { index: { type: 'integer' }, name: { type: 'string' }, label: { type: 'string' } } },
                approver: { type: 'boolean' },
              },
              required: ['requestId', 'process', 'step', 'approver'],
            },
            requests: { type: 'array', items: requestSummary },
          },
          required: ['lock', 'requests'],
        },
      },
    },
    handler: (request) => {
      const { object, recordId } = request.params as { object: string; recordId: string };
      return service.forRecord(env(request), request.principal, object, recordId);
    },
  });

  routes.add({
    method: 'GET', path: '/approvals/requests/:id', tags, errorStatuses: [404],
    summary: 'One approval request: status, steps, decisions and progress (its submitter, approvers and admins; others 404)',
    schema: { params: idParams, response: { 200: requestDetail } },
    handler: (request) => service.get(env(request), request.principal, (request.params as { id: string }).id),
  });

  routes.add({
    method: 'GET', path: '/approvals/requests/:id/attachments/:attachmentId', tags, errorStatuses: [404],
    summary: 'Download a file attached to a decision of the request',
    schema: { params: { type: 'object', properties: { id: ID, attachmentId: ID }, required: ['id', 'attachmentId'] } },
    handler: async (request, reply) => {
      const { id, attachmentId } = request.params as { id: string; attachmentId: string };
      const file = await service.attachment(env(request), request.principal, id, attachmentId);
      reply.header('content-type', String(file.content_type));
      reply.header('content-disposition', `attachment; filename="${String(file.name).replace(/[^\w.() -]/g, '_')}"`);
      reply.header('x-content-type-options', 'nosniff');
      return reply.send(Buffer.from(String(file.content), 'base64'));
    },
  });

  const who: Record<string, string> = {
    approve: 'an approver of the current step', reject: 'an approver of the current step (one rejection vetoes)',
    reassign: 'an approver (its own place) or an admin (body.from)', 'send-back': 'an approver (at most maxRevisions times)',
    'request-info': 'an approver asks the submitter, or the submitter answers (comment required)', remind: 'the submitter or an admin (once per 15 minutes)',
    recall: 'the submitter or an admin', resubmit: 'the submitter, after a send-back',
  };
  for (const action of REQUEST_ACTIONS) {
    routes.add({
      method: 'POST', path: `/approvals/requests/:id/${action}`, tags, errorStatuses: [404, 409, ...(action === 'remind' ? [429] : [])],
      bodyLimit: MAX_ATTACHMENTS * Math.ceil(MAX_ATTACHMENT_BYTES / 3) * 4 + 64 * 1024,
      summary: `Approval request action ${action}: ${who[action]}; comment and attachments are kept with the request`,
      schema: { params: idParams, body: decisionBodySchema(action), response: { 200: requestDetail } },
      handler: async (request) => {
        const view = await service.act(env(request), request.principal, (request.params as { id: string }).id, action, request.body ?? {});
        if (audit && DECISIONS.has(action)) {
          const row = view as unknown as Record<string, unknown>;
          await audit.record(auditSourceOf(request), {
            action: 'approval.request_decided', target: { type: 'approval_request', id: String(row.id), label: typeof row.process === 'string' ? row.process : null },
            after: { decision: action, status: row.status, process: row.process, object: row.object ?? null, recordId: row.recordId ?? null, step: (row.step as { name?: string } | undefined)?.name ?? null },
          });
        }
        return view;
      },
    });
  }
}
