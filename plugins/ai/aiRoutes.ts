import { PassThrough } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { auditSourceOf, type AuditRecord } from '../../capabilities/auditRecord.ts';
import type { HttpRoutes } from '../../capabilities/httpRoutes.ts';
import { codedError, isCodedError } from '../../kernel/errors.ts';
import type { Logger } from '../../kernel/logger.ts';
import { clientGone, schemas, sse } from './aiRequest.ts';
import type { Conversations } from './conversations.ts';
import type { Caller, PendingActions } from './pendingActions.ts';

const tags = ['ai'];
const noQuery = { type: 'object', additionalProperties: false };
const idParams = { type: 'object', properties: { id: { type: 'string', minLength: 1, maxLength: 64 } }, required: ['id'] };
const page = (statuses?: string[]) => ({
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
    offset: { type: 'integer', minimum: 0, maximum: 100_000, default: 0 },
    ...(statuses ? { status: { type: 'string', enum: statuses } } : {}),
  },
});
const nullable = (type: string) => ({ type: [type, 'null'] });
const toolCall = { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' }, arguments: { type: 'string' } } };
/** What a tool call did (toolSummary.ts): counts and ids, never rows. */
const toolSummary = {
  type: 'object',
  properties: {
    callId: { type: 'string' }, name: { type: 'string' }, object: nullable('string'), rows: { type: 'integer' }, more: { type: 'boolean' }, valid: { type: 'boolean' },
    kind: { type: 'string', enum: ['create', 'update', 'delete', 'action'] }, pendingActionId: { type: 'string' }, recordId: { type: 'string' },
    error: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } } },
  },
  required: ['callId', 'name', 'object'],
};
const message = {
  type: 'object',
  properties: { id: { type: 'string' }, role: { type: 'string' }, content: nullable('string'), toolCalls: { type: 'array', items: toolCall }, toolCallId: { type: 'string' }, tool: toolSummary, createdAt: { type: 'string' } },
  required: ['id', 'role', 'content', 'createdAt'],
};
const conversation = {
  type: 'object',
  properties: { id: { type: 'string' }, title: nullable('string'), agent: nullable('string'), createdAt: { type: 'string' }, updatedAt: { type: 'string' } },
  required: ['id', 'title', 'agent', 'createdAt'],
};
const anything = {};
const pendingAction = {
  type: 'object',
  properties: {
    id: { type: 'string' }, status: { type: 'string', enum: ['pending', 'applying', 'applied', 'failed', 'rejected', 'expired'] },
    kind: { type: 'string', enum: ['create', 'update', 'delete', 'action'] }, object: nullable('string'), recordId: nullable('string'), action: nullable('string'),
    payload: anything, expectedVersion: nullable('integer'), seen: { type: ['object', 'null'], additionalProperties: true }, conversationId: { type: 'string' }, proposedBy: { type: 'string' },
    decidedBy: nullable('string'), decidedAt: nullable('string'), expiresAt: { type: 'string' }, result: anything, error: anything, createdAt: { type: 'string' },
    canApprove: { type: 'boolean' }, canReject: { type: 'boolean' }, people: { type: 'object', additionalProperties: { type: 'string' } },
  },
  required: ['id', 'status', 'kind', 'seen', 'conversationId', 'proposedBy', 'expiresAt', 'canApprove', 'canReject'],
};

function callerOf(request: FastifyRequest): Caller {
  if (!request.principal) throw codedError('UNAUTHENTICATED');
  return { environmentId: request.environmentId, principal: request.principal, requestId: request.id };
}
const idOf = (request: FastifyRequest) => (request.params as { id: string }).id;

const messageBody = { type: 'object', additionalProperties: false, required: ['content'], properties: { content: { type: 'string', minLength: 1, maxLength: 100_000 } } };

/** /ai/conversations and /ai/pending-actions: thin edges over the conversation and approval services. */
export function addAiRoutes(routes: HttpRoutes, conversations: Conversations, pending: PendingActions, log: Logger, audit?: AuditRecord): void {
  /** An approval or rejection of a pending action, in the audit trail (the payload is not copied). */
  const decided = async (request: FastifyRequest, decision: 'approve' | 'reject', action: Awaited<ReturnType<PendingActions['approve']>>) => {
    const row = action as unknown as Record<string, unknown>;
    await audit?.record(auditSourceOf(request), {
      action: 'ai.pending_action_decided', target: { type: 'ai_pending_action', id: String(row.id), label: typeof row.object === 'string' ? row.object : null },
      after: { decision, status: row.status, kind: row.kind, object: row.object ?? null, recordId: row.recordId ?? null, proposedBy: row.proposedBy ?? null },
    });
    return action;
  };
  routes.add({
    method: 'GET', path: '/ai/conversations', tags, permission: 'ai:chat',
    summary: "The caller's conversations, newest first (limit, offset)",
    schema: { querystring: page(), response: { 200: { type: 'object', properties: { items: { type: 'array', items: conversation }, total: { type: 'integer' } }, required: ['items', 'total'] } } },
    handler: (request) => conversations.list(callerOf(request), request.query as { limit: number; offset: number }),
  });
  routes.add({
    method: 'POST', path: '/ai/conversations', tags, permission: 'ai:chat', successStatus: 201,
    summary: 'Start a conversation: { agent?, title? }; without an agent the default model answers with no tools',
    schema: {
      querystring: noQuery,
      body: { type: 'object', additionalProperties: false, properties: { agent: { type: 'string', minLength: 1, maxLength: 63 }, title: { type: 'string', maxLength: 200 } } },
      response: { 201: conversation },
    },
    handler: async (request, reply) => {
      const created = await conversations.create(callerOf(request), (request.body ?? {}) as { agent?: string; title?: string });
      reply.code(201);
      return created;
    },
  });
  routes.add({
    method: 'GET', path: '/ai/conversations/:id', tags, permission: 'ai:chat',
    summary: "One of the caller's conversations with its messages (another user's is 404)",
    schema: { params: idParams, querystring: noQuery, response: { 200: { ...conversation, properties: { ...conversation.properties, messages: { type: 'array', items: message } } } } },
    handler: (request) => conversations.get(callerOf(request), idOf(request)),
  });
  routes.add({
    method: 'DELETE', path: '/ai/conversations/:id', tags, permission: 'ai:chat', successStatus: 204,
    summary: "Delete one of the caller's conversations and its messages; 204 (pending actions it proposed stay in the queue)",
    schema: { params: idParams, querystring: noQuery },
    handler: async (request, reply) => {
      await conversations.remove(callerOf(request), idOf(request));
      reply.code(204);
      return null;
    },
  });
  routes.add({
    method: 'POST', path: '/ai/conversations/:id/messages', tags, permission: 'ai:chat', errorStatuses: [429, 502, 504],
    summary: "Append a user message { content } and run the agent: its tools read as the caller and queue writes for approval; answers the new messages",
    schema: {
      params: idParams, querystring: noQuery,
      body: messageBody,
      response: {
        200: {
          type: 'object',
          properties: { messages: { type: 'array', items: message }, usage: schemas.usage, stepLimitReached: { type: 'boolean' }, pendingActions: { type: 'array', items: { type: 'string' } } },
          required: ['messages', 'usage', 'stepLimitReached', 'pendingActions'],
        },
      },
    },
    handler: async (request, reply) => {
      const gone = clientGone(reply);
      try {
        return await conversations.send(callerOf(request), idOf(request), (request.body as { content: string }).content, gone.signal);
      } finally {
        gone.release();
      }
    },
  });

  routes.add({
    method: 'POST', path: '/ai/conversations/:id/messages/stream', tags, permission: 'ai:chat', errorStatuses: [429, 502, 504],
    summary: 'The turn of POST /ai/conversations/:id/messages over server-sent events: `delta` (the model\'s text as it arrives), `tool` (each tool call once it ran: the object, the rows, the pending action; never the rows themselves), then `done` (the answer of the JSON route) or `error`; closing the connection aborts the turn',
    schema: { params: idParams, querystring: noQuery, body: messageBody },
    handler: async (request, reply) => {
      const gone = clientGone(reply);
      let run;
      try {
        // Everything that can refuse the turn (not found, limits, an unknown model) answers before the stream starts.
        run = await conversations.begin(callerOf(request), idOf(request), (request.body as { content: string }).content, gone.signal);
      } catch (error) {
        gone.release();
        throw error;
      }
      const out = new PassThrough();
      const write = (event: string, data: unknown) => { if (!gone.signal.aborted) out.write(sse(event, data)); };
      void (async () => {
        try {
          const answer = await run({ delta: (content) => write('delta', { content }), tool: (summary) => write('tool', summary) });
          write('done', answer);
        } catch (error) {
          if (!gone.signal.aborted) {
            const coded = isCodedError(error) ? error : codedError('INTERNAL', { requestId: request.id });
            if (!isCodedError(error)) log.error({ err: error }, 'ai: a streamed turn failed');
            write('error', { error: coded.toJSON() });
          }
        } finally {
          gone.release();
          out.end();
        }
      })();
      reply.header('content-type', 'text/event-stream; charset=utf-8').header('cache-control', 'no-store').header('x-accel-buffering', 'no');
      return reply.send(out);
    },
  });

  const STATUSES = ['pending', 'applying', 'applied', 'failed', 'rejected', 'expired'];
  routes.add({
    method: 'GET', path: '/ai/pending-actions', tags, permission: 'ai:read',
    summary: 'The approval queue, newest first: the actions of the caller\'s conversations (ai:approve holders: all of the environment); status, limit, offset',
    schema: { querystring: page(STATUSES), response: { 200: { type: 'object', properties: { items: { type: 'array', items: pendingAction }, total: { type: 'integer' } }, required: ['items', 'total'] } } },
    handler: (request) => pending.list(callerOf(request), request.query as { status?: string; limit: number; offset: number }),
  });
  routes.add({
    method: 'GET', path: '/ai/pending-actions/:id', tags, permission: 'ai:read',
    summary: 'One queued mutation (one the caller may not see is 404)',
    schema: { params: idParams, querystring: noQuery, response: { 200: pendingAction } },
    handler: (request) => pending.get(callerOf(request), idOf(request)),
  });
  routes.add({
    method: 'POST', path: '/ai/pending-actions/:id/approve', tags, permission: 'ai:approve', errorStatuses: [409],
    summary: 'Apply a pending mutation as the approving user (their row and field security), at the version the model saw; at most once',
    schema: { params: idParams, querystring: noQuery, response: { 200: pendingAction } },
    handler: async (request) => decided(request, 'approve', await pending.approve(callerOf(request), idOf(request))),
  });
  routes.add({
    method: 'POST', path: '/ai/pending-actions/:id/reject', tags, permission: 'ai:approve', errorStatuses: [409],
    summary: 'Discard a pending mutation',
    schema: { params: idParams, querystring: noQuery, response: { 200: pendingAction } },
    handler: async (request) => decided(request, 'reject', await pending.reject(callerOf(request), idOf(request))),
  });
}
