import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../../capabilities/authSession.ts';
import type { HttpRoutes } from '../../capabilities/httpRoutes.ts';
import { codedError } from '../../kernel/errors.ts';
import type { ResolvedAction } from '../../metadata/actionTypes.ts';
import { FLOW_RUN_STATUSES, type FlowRun, type ResolvedFlow } from '../../metadata/flowTypes.ts';
import { startableByAction } from '../../metadata/checkFlowActions.ts';
import { actionBodySchema } from '../actions/inputSchema.ts';
import type { Runner } from './createFlowsRunner.ts';

const tags = ['flows'];
const name = { type: 'string', maxLength: 64 };
const runId = { type: 'string', maxLength: 64 };
const started = { type: 'object', properties: { runId: { type: 'string' }, status: { type: 'string', enum: [...FLOW_RUN_STATUSES] } }, required: ['runId', 'status'] };
const stepError = { type: ['object', 'null'], properties: { code: { type: 'string' }, message: { type: 'string' } } };
export const runSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' }, flow: { type: 'string' }, status: { type: 'string', enum: [...FLOW_RUN_STATUSES] },
    input: { type: 'object', additionalProperties: true },
    steps: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' }, status: { type: 'string' }, output: {}, error: stepError }, required: ['id', 'status', 'output', 'error'] } },
    startedAt: { type: 'string', format: 'date-time' }, endedAt: { type: ['string', 'null'], format: 'date-time' },
    trigger: { type: 'string' }, runAs: { type: 'string', enum: ['caller', 'system'] }, startedBy: { type: ['string', 'null'] }, error: stepError,
  },
  required: ['id', 'flow', 'status', 'input', 'steps', 'startedAt', 'endedAt'],
};

/** The JSON Schema of a flow's start body: its declared input, unknown keys refused. */
export function flowBodySchema(flow: ResolvedFlow): Record<string, unknown> {
  return actionBodySchema({ object: null, input: flow.input } as unknown as ResolvedAction);
}

function notStartable(flow: ResolvedFlow) {
  const kind = flow.start?.timeRelative ? 'time-relative' : flow.type;
  const by = flow.type === 'record' ? 'record events' : flow.type === 'schedule' ? 'its schedule' : flow.type === 'api' ? 'its inbound hook' : 'the daily sweep';
  return codedError('FLOW_NOT_STARTABLE', { flow: flow.name, kind, reason: `it is started by ${by}, not through this route`, fix: 'start an autolaunched flow, or let its trigger start this one' });
}

/**
 * Who may start through the API: any signed-in user starts a flow that runs as the caller (it can
 * do no more than the caller could); a flow that runs as the system acts beyond the caller's own
 * rights, so only admins start it directly (others through an action whose permission gates it).
 */
function checkStarter(flow: ResolvedFlow, principal: Principal | null): Principal {
  if (!principal) throw codedError('UNAUTHENTICATED');
  if (flow.runAs === 'system' && !principal.isAdmin) throw codedError('PERMISSION_DENIED', { permission: `flow:${flow.name}`, flow: flow.name, subjectId: principal.userId, reason: 'a flow that runs as the system is started by admins, or through an action' });
  return principal;
}

async function startRoute(runner: Runner, flowName: string, request: FastifyRequest, reply: FastifyReply) {
  const flow = runner.get(flowName);
  if (!flow) throw codedError('NOT_FOUND', { what: `Flow '${flowName.slice(0, 64)}'`, flow: flowName.slice(0, 64) });
  const principal = checkStarter(flow, request.principal);
  if (!startableByAction(flow)) throw notStartable(flow);
  const result = await runner.start(flow.name, request.body ?? {}, { environmentId: request.environmentId, principal, trigger: 'api', requestId: request.id });
  reply.code(202);
  return result;
}

/** A run its caller may see: its starter's, or any for admins; anything else is 404 (no existence oracle). */
async function visibleRun(runner: Runner, request: FastifyRequest): Promise<FlowRun> {
  const { flow, runId: id } = request.params as { flow: string; runId: string };
  const principal = request.principal;
  if (!principal) throw codedError('UNAUTHENTICATED');
  const run = await runner.getRun(request.environmentId, id);
  const hidden = codedError('NOT_FOUND', { what: `Run '${id.slice(0, 64)}' of flow '${flow.slice(0, 64)}'`, flow: flow.slice(0, 64), runId: id.slice(0, 64) });
  if (!run || run.flow !== flow) throw hidden;
  if (!principal.isAdmin && (run.startedBy === null || run.startedBy !== principal.userId)) throw hidden;
  // A system run read what its starter may not: a starter who is not an admin sees its steps' statuses and errors, not their outputs.
  if (!principal.isAdmin && run.runAs === 'system') return { ...run, steps: run.steps.map((s) => ({ ...s, output: null })) };
  return run;
}

export function addFlowRoutes(routes: HttpRoutes, runner: Runner): void {
  routes.add({
    method: 'POST', path: '/flows/:flow/start', tags,
    summary: 'Start a declared flow; an unknown flow is 404, one started by its own trigger 409',
    successStatus: 202, errorStatuses: [409],
    schema: { params: { type: 'object', properties: { flow: name }, required: ['flow'] }, response: { 202: started } },
    handler: (request, reply) => startRoute(runner, (request.params as { flow: string }).flow, request, reply),
  });
  routes.add({
    method: 'GET', path: '/flows/:flow/runs/:runId', tags,
    summary: "A run of a flow: its status and each step's output (its starter and admins)",
    schema: { params: { type: 'object', properties: { flow: name, runId }, required: ['flow', 'runId'] }, response: { 200: runSchema } },
    handler: (request) => visibleRun(runner, request),
  });
  routes.add({
    method: 'POST', path: '/flows/:flow/runs/:runId/cancel', tags,
    summary: 'Cancel a running or waiting run: it stops at its next step boundary',
    errorStatuses: [409],
    schema: { params: { type: 'object', properties: { flow: name, runId }, required: ['flow', 'runId'] }, response: { 200: runSchema } },
    handler: async (request) => {
      const run = await visibleRun(runner, request);
      if (run.status !== 'running' && run.status !== 'waiting') throw codedError('FLOW_RUN_FINISHED', { runId: run.id, flow: run.flow, status: run.status });
      return (await runner.cancel(request.environmentId, run.id))!;
    },
  });
}

/** POST /flows/<name>/start for each flow the API starts: its body schema generated from the declared input. */
export function addFlowStartRoute(routes: HttpRoutes, runner: Runner, flow: ResolvedFlow): void {
  routes.add({
    method: 'POST', path: `/flows/${flow.name}/start`, tags,
    summary: `Start ${flow.label}${flow.description ? `: ${flow.description}` : ''}${flow.runAs === 'system' ? ' (runs as the system; admins only)' : ''}`,
    successStatus: 202,
    ...(flow.runAs === 'system' ? { errorStatuses: [403] } : {}),
    schema: { body: flowBodySchema(flow), response: { 202: started } },
    handler: (request, reply) => startRoute(runner, flow.name, request, reply),
  });
}
