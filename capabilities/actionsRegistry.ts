import type { Principal } from './authSession.ts';
import type { DataContext, DataRecord } from './dataEngine.ts';
import { defineCapability } from './defineCapability.ts';
import type { ResolvedAction } from '../metadata/actionTypes.ts';

/** What a handler function receives: the validated input, and the caller as the data engine sees it. */
export interface ActionHandlerContext {
  action: ResolvedAction;
  input: Record<string, unknown>;
  /** Record actions: the record as the caller may read it (the caller may also edit it). */
  record: DataRecord | null;
  /** The caller's data context: pass it to `data.engine` calls so that security applies as to the caller. */
  data: DataContext;
}

/** A plugin's implementation of a `run.type: 'handler'` action; answers the JSON-able `result`. */
export type ActionHandler = (ctx: ActionHandlerContext) => unknown;

/** What the flows plugin registers for actions of `run.type: 'flow'`: starts the flow as `principal` and answers `{ runId, status }`. */
export type ActionFlowStarter = (flow: string, input: Record<string, unknown>, principal: Principal, options: RunOptions) => Promise<unknown>;

export interface RunOptions {
  environmentId: string;
  requestId?: string;
}

export interface ActionsRegistry {
  /**
   * During register only: the function of the handler action `name`. Every declared handler action
   * needs one at start, and a handler for an action not declared as `run.type: 'handler'` fails the boot.
   */
  handle(name: string, fn: ActionHandler): void;
  /** During register only: how actions of `run.type: 'flow'` start their flow (the flows plugin registers it). */
  startFlowsWith(starter: ActionFlowStarter): void;
  /** The loaded actions, in app then name order. */
  list(): ResolvedAction[];
  /** One action by name, or undefined. */
  get(name: string): ResolvedAction | undefined;
  /** The JSON Schema of an action's body (its inputs, plus `recordId` for a record action), as its route validates it. */
  inputSchema(name: string): Record<string, unknown> | undefined;
  /**
   * Run an action as `principal` with the same checks as POST /actions/:name: NOT_FOUND for an
   * unknown action, UNAUTHENTICATED without a principal, PERMISSION_DENIED without its permission
   * key, VALIDATION_ERROR (one detail per field, unknown keys refused) for a bad body, NOT_FOUND for
   * a record the caller cannot see. `body` is the input plus `recordId` for a record action.
   * The principal must carry its resolved permission keys (as `request.principal` does).
   */
  run(name: string, body: unknown, principal: Principal | null, options: RunOptions): Promise<{ result: unknown }>;
}

export const actionsRegistry = defineCapability<ActionsRegistry>()({
  id: 'actions.registry',
  cardinality: 'single',
  description: 'The declared actions: list them, run one as a caller with the checks of its route, and register the functions of handler actions.',
});
