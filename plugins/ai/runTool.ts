import type { ActionsRegistry } from '../../capabilities/actionsRegistry.ts';
import type { DataContext, DataEngine, DataRecord } from '../../capabilities/dataEngine.ts';
import type { MetadataRegistry } from '../../capabilities/metadataRegistry.ts';
import { codedError, isCodedError } from '../../kernel/errors.ts';
import { apiObject } from '../../metadata/apiObject.ts';
import { compileExpression } from '../../metadata/cel/compileExpression.ts';
import { AGENT_ACCESS_OBJECTS } from '../../metadata/agentTypes.ts';
import type { FormulaType } from '../../metadata/types.ts';
import { jsonProblem } from '../../kernel/jsonLimits.ts';
import type { ToolCall } from './providerClient.ts';

const QUERY_KEYS = new Set(['object', 'where', 'fields', 'orderBy', 'limit', 'groupBy', 'aggregations']);

/** What a write tool proposes: the row of sys_ai_pending_action without its bookkeeping. */
export interface Proposal {
  kind: 'create' | 'update' | 'delete' | 'action';
  object: string | null;
  recordId: string | null;
  action: string | null;
  payload: Record<string, unknown>;
  expectedVersion: number | null;
  /** The record as the proposing user read it when the model proposed (null for a create, or an action on no record). */
  seen: DataRecord | null;
}

export interface ToolDeps {
  engine: DataEngine;
  metadata: MetadataRegistry;
  actions: ActionsRegistry | undefined;
  maxRows: number;
  /** The conversation owner's context: every read is theirs (RLS, FLS). */
  ctx: DataContext;
  /** The tools the agent lists. */
  allowed: readonly string[];
  /** The agent's name and the access objects it declares (accessObjects): the only ones its write tools may target. */
  agent: { name: string; accessObjects: readonly string[] };
  /** Queues a proposal; answers its pending action id. */
  propose(proposal: Proposal): Promise<string>;
}

type Args = Record<string, unknown>;

function badArgs(reason: string): never {
  throw codedError('VALIDATION_ERROR', { summary: `the tool arguments are not valid: ${reason}` });
}

function str(args: Args, key: string): string {
  const value = args[key];
  if (typeof value !== 'string' || value === '') badArgs(`${key} must be a non-empty string`);
  return value;
}

function record(args: Args, key: string): Record<string, unknown> {
  const value = args[key];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) badArgs(`${key} must be an object`);
  return value as Record<string, unknown>;
}

/** query_data: validated and run exactly like POST /data/:object/query, as the caller; the limit capped. */
async function queryData(deps: ToolDeps, args: Args): Promise<unknown> {
  for (const key of Object.keys(args)) if (!QUERY_KEYS.has(key)) badArgs(`unknown key '${key.slice(0, 64)}'; keys are ${[...QUERY_KEYS].join(', ')}`);
  const { object: name, ...query } = args;
  if (typeof name !== 'string') badArgs('object must be an object name');
  const aggregate = query.groupBy !== undefined || query.aggregations !== undefined;
  const object = apiObject(deps.metadata, name, aggregate ? 'aggregate' : 'list');
  const cap = Math.min(deps.maxRows, object.maxPageSize);
  const limit = typeof query.limit === 'number' && Number.isInteger(query.limit) && query.limit > 0 ? Math.min(query.limit, cap) : cap;
  const result = await deps.engine.query(object.name, { ...query, limit }, deps.ctx, { total: false });
  return { items: result.items, ...(result.nextCursor ? { more: true } : {}) };
}

/** validate_expression: the loader's CEL compilation against the real object schema. */
function validateExpression(deps: ToolDeps, args: Args): unknown {
  const object = apiObject(deps.metadata, str(args, 'object'), 'list');
  const expression = str(args, 'expression');
  const returns = args.returns as FormulaType | undefined;
  if (returns !== undefined && !['text', 'number', 'integer', 'boolean', 'date', 'datetime'].includes(returns)) badArgs('returns must be text, number, integer, boolean, date or datetime');
  try {
    const compiled = compileExpression(expression, { name: object.name, fields: object.fields, owner: object.owner }, returns);
    return { valid: true, errors: [], type: compiled.type };
  } catch (error) {
    if (!isCodedError(error)) throw error;
    return { valid: false, errors: [String(error.details.reason ?? error.message)] };
  }
}

/** The record as the caller sees it now: its version is the one the approval must still find. */
async function seen(deps: ToolDeps, object: string, id: string): Promise<DataRecord> {
  return deps.engine.get(object, id, {}, deps.ctx);
}

/** The object a write tool targets, when the agent may target it: an access object only when the agent declares it. */
function targetable(deps: ToolDeps, kind: Proposal['kind'], object: string): string {
  if (AGENT_ACCESS_OBJECTS.has(object) && !deps.agent.accessObjects.includes(object)) {
    throw codedError('AI_ACCESS_OBJECT_UNDECLARED', { agent: deps.agent.name, kind, object });
  }
  return object;
}

async function propose(deps: ToolDeps, name: string, args: Args): Promise<unknown> {
  let proposal: Proposal;
  if (name === 'create_record') {
    const object = targetable(deps, 'create', apiObject(deps.metadata, str(args, 'object'), 'create').name);
    proposal = { kind: 'create', object, recordId: null, action: null, payload: { values: record(args, 'values') }, expectedVersion: null, seen: null };
  } else if (name === 'update_record') {
    const object = targetable(deps, 'update', apiObject(deps.metadata, str(args, 'object'), 'update').name);
    const current = await seen(deps, object, str(args, 'id'));
    const asked = args.expectedVersion;
    if (asked !== undefined && !(Number.isInteger(asked) && (asked as number) > 0)) badArgs('expectedVersion must be a positive integer');
    proposal = { kind: 'update', object, recordId: String(current.id), action: null, payload: { values: record(args, 'values') }, expectedVersion: (asked as number | undefined) ?? Number(current.version), seen: current };
  } else if (name === 'delete_record') {
    const object = targetable(deps, 'delete', apiObject(deps.metadata, str(args, 'object'), 'delete').name);
    const current = await seen(deps, object, str(args, 'id'));
    proposal = { kind: 'delete', object, recordId: String(current.id), action: null, payload: {}, expectedVersion: Number(current.version), seen: current };
  } else {
    const action = deps.actions?.get(name.slice('action_'.length));
    if (!action) badArgs(`no action '${name.slice('action_'.length)}'`);
    let current: DataRecord | null = null;
    if (action.object) current = await seen(deps, action.object, str(args, 'recordId'));
    proposal = { kind: 'action', object: action.object, recordId: current ? String(current.id) : null, action: action.name, payload: args, expectedVersion: current ? Number(current.version) : null, seen: current };
  }
  const id = await deps.propose(proposal);
  return { pendingActionId: id, status: 'pending', note: 'Queued for human approval: nothing has changed yet.' };
}

/**
 * Runs one tool call of the model as the conversation's owner and answers what goes back to the
 * model: the result, or `{ error: { code, message } }` for a call it can correct. Failures of the
 * runtime itself (a provider, a database) are thrown.
 */
export async function runTool(deps: ToolDeps, call: ToolCall): Promise<unknown> {
  try {
    if (!deps.allowed.includes(call.name)) badArgs(`unknown tool '${call.name.slice(0, 80)}'; this agent has ${deps.allowed.join(', ') || 'no tools'}`);
    let args: unknown;
    try {
      args = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
    } catch {
      badArgs('they are not valid JSON');
    }
    const problem = jsonProblem(args, { root: 'arguments', text: call.arguments });
    if (problem) badArgs(`${problem.path} ${problem.message}`);
    if (typeof args !== 'object' || args === null || Array.isArray(args)) badArgs('they must be a JSON object');
    if (call.name === 'query_data') return await queryData(deps, args as Args);
    if (call.name === 'validate_expression') return validateExpression(deps, args as Args);
    return await propose(deps, call.name, args as Args);
  } catch (error) {
    if (isCodedError(error) && error.status < 500) return { error: { code: error.code, message: error.message } };
    throw error;
  }
}
