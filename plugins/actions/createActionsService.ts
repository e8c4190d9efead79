import type { AccessGrants } from '../../capabilities/accessGrants.ts';
import { holdsPermission } from '../../capabilities/holdsPermission.ts';
import type { ActionFlowStarter, ActionHandler, ActionsRegistry, RunOptions } from '../../capabilities/actionsRegistry.ts';
import type { Principal } from '../../capabilities/authSession.ts';
import { holdsScope, requireScope } from '../../capabilities/credentialScopes.ts';
import { blindAnswer } from './blindAnswer.ts';
import type { DataContext, DataEngine, DataRecord } from '../../capabilities/dataEngine.ts';
import type { MetadataRegistry } from '../../capabilities/metadataRegistry.ts';
import { codedError, type CodedError } from '../../kernel/errors.ts';
import type { ActionAssignment, ResolvedAction } from '../../metadata/actionTypes.ts';
import { actionBodySchema } from './inputSchema.ts';
import { validateActionInput } from './validateActionInput.ts';

export interface ActionsService extends ActionsRegistry {
  /** At start: every handler action has its function, and every function a declared handler action. */
  checkHandlers(): CodedError[];
  /** After start: handle() is refused. */
  freeze(): void;
}

function evaluate(assignments: readonly ActionAssignment[], input: Record<string, unknown>, record: DataRecord | null, principal: Principal, now: Date): DataRecord {
  const user = { id: principal.userId, positions: principal.positions, organizationId: principal.organizationId ?? null };
  const values: DataRecord = {};
  for (const { field, expression } of assignments) {
    values[field] = expression.evaluate({ input, ...(record ? { record } : {}), context: { now, user } });
  }
  return values;
}

/**
 * The actions of the loaded apps and how they run: the same checks whoever calls (the route, AI
 * and MCP tools), every write through the data engine as the caller, so row- and field-level
 * security, validation, hooks and versions apply.
 */
export function createActionsService(metadata: MetadataRegistry, engine: DataEngine, grants: AccessGrants): ActionsService {
  const handlers = new Map<string, ActionHandler>();
  let flowStarter: ActionFlowStarter | null = null;
  let frozen = false;
  /** By name, built once at start (the metadata is loaded then and does not change). */
  let byName: ReadonlyMap<string, ResolvedAction> | null = null;
  const list = () => (byName ? [...byName.values()] : metadata.apps().flatMap((app) => app.actions));
  const get = (name: string) => (byName ? byName.get(name) : list().find((a) => a.name === name));

  /** Handler and create actions on a record do not write it: the caller's edit right is asked explicitly. */
  async function requireEdit(action: ResolvedAction, record: DataRecord, principal: Principal, ctx: DataContext): Promise<void> {
    if (principal.isAdmin) return;
    const explanation = await grants.explain(ctx.environmentId, principal.userId, action.object!, String(record.id));
    if (!explanation.edit.allowed) throw codedError('PERMISSION_DENIED', { permission: `${action.object}:edit`, subjectId: principal.userId, object: action.object, id: String(record.id), action: action.name });
  }

  async function execute(action: ResolvedAction, input: Record<string, unknown>, recordId: string | null, principal: Principal, ctx: DataContext): Promise<unknown> {
    const now = new Date();
    const run = action.run;
    if (run.type === 'flow') {
      if (!flowStarter) throw codedError('INTERNAL', { requestId: ctx.requestId ?? 'none', reason: `no flows plugin starts flow '${run.flow}'` });
      return flowStarter(run.flow, input, principal, { environmentId: ctx.environmentId, ...(ctx.requestId ? { requestId: ctx.requestId } : {}) });
    }
    if (run.type === 'update') {
      return engine.transaction(ctx, async (tx) => {
        const record = await tx.get(action.object!, recordId!, {}, ctx);
        const patch = evaluate(action.assignments, input, record, principal, now);
        // The version read is the one written over: a change in between is CONCURRENT_UPDATE, not lost.
        return tx.update(action.object!, recordId!, patch, { expectedVersion: Number(record.version) }, ctx);
      });
    }
    // The edit check reads outside any transaction (on SQLite a second connection would wait for it):
    // the record is read and checked first, then the one write, atomic by itself, happens.
    const record = recordId === null ? null : await engine.get(action.object!, recordId, {}, ctx);
    if (record) await requireEdit(action, record, principal, ctx);
    if (run.type === 'create') return engine.create(run.object, evaluate(action.assignments, input, record, principal, now), ctx);
    const handler = handlers.get(action.name);
    if (!handler) throw codedError('INTERNAL', { requestId: ctx.requestId ?? 'none', reason: `no handler for action '${action.name}'` });
    return handler({ action, input, record, data: ctx });
  }

  return {
    handle(name, fn) {
      if (frozen) throw new Error(`actions.registry: the handler of '${name}' must be registered during register, before the runtime starts`);
      if (typeof fn !== 'function') throw new TypeError(`actions.registry: the handler of '${name}' must be a function`);
      if (handlers.has(name)) throw new Error(`actions.registry: action '${name}' already has a handler`);
      handlers.set(name, fn);
    },
    startFlowsWith(starter) {
      if (frozen) throw new Error('actions.registry: the flow starter must be registered during register, before the runtime starts');
      if (flowStarter) throw new Error('actions.registry: a flow starter is already registered');
      flowStarter = starter;
    },
    list,
    get,
    inputSchema(name) {
      const action = get(name);
      return action ? actionBodySchema(action) : undefined;
    },
    async run(name, body, principal, options: RunOptions) {
      // A scoped credential must hold actions:execute, whatever the action; checked before the name is looked up.
      if (principal) requireScope(principal, 'actions:execute', `run action ${name.slice(0, 64)}`);
      const action = get(name);
      if (!action) throw codedError('NOT_FOUND', { what: `Action '${name.slice(0, 64)}'`, action: name.slice(0, 64) });
      if (!principal) throw codedError('UNAUTHENTICATED');
      if (action.permission && !holdsPermission(principal, action.permission)) {
        throw codedError('PERMISSION_DENIED', { permission: action.permission, action: action.name, subjectId: principal.userId });
      }
      const checked = validateActionInput(action, body);
      if (!checked.ok) {
        const errors = checked.problems;
        throw codedError('VALIDATION_ERROR', { summary: errors.map((e) => `${e.path} ${e.message}`).join('; '), errors });
      }
      // The action's own reads and writes are what actions:execute allows: they run as the user
      // (its grants, row and field security still apply), without the credential's data scopes.
      const { scopes: _ceiling, ...actor } = principal;
      const ctx: DataContext = { environmentId: options.environmentId, principal: actor, ...(options.requestId ? { requestId: options.requestId } : {}) };
      const result = (await execute(action, checked.input, checked.recordId, actor, ctx)) ?? null;
      return { result: holdsScope(principal, 'data:read') ? result : blindAnswer(result) };
    },
    checkHandlers() {
      const errors: CodedError[] = [];
      const declared = list().filter((a) => a.run.type === 'handler');
      for (const action of declared) {
        if (handlers.has(action.name)) continue;
        errors.push(codedError('ACTION_HANDLER_MISSING', {
          action: action.name, file: action.source,
          fix: `enable the plugin that implements it, or register one: ctx.resolve('actions.registry').handle('${action.name}', fn) during register (requires 'actions.registry')`,
        }));
      }
      if (!flowStarter) {
        for (const action of list().filter((a) => a.run.type === 'flow')) {
          errors.push(codedError('FLOW_RUNNER_MISSING', { action: action.name, file: action.source, flow: action.run.type === 'flow' ? action.run.flow : '', fix: 'enable the flows plugin (plugins.flows), or change the action\'s run.type' }));
        }
      }
      for (const name of handlers.keys()) {
        if (declared.some((a) => a.name === name)) continue;
        const what = get(name) ? `action '${name}' is declared with run.type '${get(name)!.run.type}', not 'handler'` : `no action '${name}' is declared`;
        errors.push(codedError('ACTION_HANDLER_UNDECLARED', { action: name, reason: what, fix: `declare actions/${name}.json with "run": { "type": "handler" }, or stop registering the handler` }));
      }
      return errors;
    },
    freeze() {
      frozen = true;
      byName = new Map(list().map((action) => [action.name, action]));
    },
  };
}
