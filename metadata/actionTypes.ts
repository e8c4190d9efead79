/**
 * Actions: named operations an app declares in actions/<name>.json, served as
 * POST /api/v1/actions/<name> and listed by the metadata API. See docs/automation.md.
 */
import type { ExpressionContext } from './types.ts';

/** Field types an action input may have: the stored value types, without computed ones. */
export const ACTION_INPUT_TYPES = [
  'text', 'textarea', 'email', 'url', 'phone',
  'integer', 'number', 'currency', 'percent',
  'boolean', 'date', 'datetime', 'select', 'multiselect', 'lookup', 'json',
] as const;
export type ActionInputType = (typeof ACTION_INPUT_TYPES)[number];

/** What an action does. */
export const ACTION_RUN_TYPES = ['update', 'create', 'handler', 'flow'] as const;
export type ActionRunType = (typeof ACTION_RUN_TYPES)[number];

export interface ActionInputField {
  type: ActionInputType;
  label?: string;
  help?: string;
  required?: boolean;
  /** text kinds: maximum length (default 10,000). */
  maxLength?: number;
  /** number kinds: bounds. */
  min?: number;
  max?: number;
  /** select, multiselect: allowed values. */
  options?: string[];
  /** lookup: the referenced object (the value is a record id). */
  reference?: string;
}

export type ActionRun =
  | { type: 'update'; set: Record<string, string> }
  | { type: 'create'; object: string; values: Record<string, string> }
  | { type: 'handler' }
  /** Starts the flow with the action's input and answers its run ({ runId, status }). */
  | { type: 'flow'; flow: string };

export interface ActionDefinition {
  /** snake_case; the route is POST /actions/<name>. */
  name: string;
  label?: string;
  description?: string;
  /** Set: a record action; the body carries `recordId` of a record of this object the caller may edit. */
  object?: string;
  /** Route permission key the caller must hold (admins hold every key), e.g. `task:close`. */
  permission?: string;
  input?: Record<string, ActionInputField>;
  run: ActionRun;
}

/** A CEL assignment compiled at load: the field it writes and the expression giving its value. */
export interface ActionAssignment {
  field: string;
  expression: CompiledActionExpression;
}

export interface ActionScope {
  input: Record<string, unknown>;
  record?: Record<string, unknown>;
  context?: ExpressionContext;
}

export interface CompiledActionExpression {
  source: string;
  type: string;
  evaluate(scope: ActionScope): unknown;
}

export interface ResolvedAction {
  name: string;
  label: string;
  description?: string;
  object: string | null;
  permission: string | null;
  input: Record<string, ActionInputField>;
  run: ActionRun;
  /** update: assignments to the record; create: values of the new record. Empty for handler. */
  assignments: ActionAssignment[];
  /** Where it was declared, for messages. */
  source: string;
  app: string;
}
