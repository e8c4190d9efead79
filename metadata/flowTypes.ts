/**
 * Flows: sequences of steps an app declares in flows/<name>.json, run in the background by the
 * flows plugin (persisted, resumable). See docs/automation.md.
 */
import type { ActionInputField } from './actionTypes.ts';
import type { ExpressionContext } from './types.ts';

/** What starts a flow: the API or an action (`autolaunched`), a record event, a cron schedule, an inbound hook. */
export const FLOW_TYPES = ['autolaunched', 'record', 'schedule', 'api'] as const;
export type FlowType = (typeof FLOW_TYPES)[number];

export const FLOW_RUN_AS = ['caller', 'system'] as const;
export type FlowRunAs = (typeof FLOW_RUN_AS)[number];

export const FLOW_STEP_TYPES = ['get', 'query', 'history', 'create', 'update', 'delete', 'branch', 'wait', 'action', 'email', 'notify', 'http'] as const;
export type FlowStepType = (typeof FLOW_STEP_TYPES)[number];

/** Record events a `record` flow listens to (the engine's after-insert, after-update and after-delete). */
export const FLOW_RECORD_EVENTS = ['insert', 'update', 'delete'] as const;
export type FlowRecordEvent = (typeof FLOW_RECORD_EVENTS)[number];

export const FLOW_HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type FlowHttpMethod = (typeof FLOW_HTTP_METHODS)[number];

export const FLOW_NOTIFY_CHANNELS = ['in_app', 'email', 'sms'] as const;

/** Bounds, also documented in docs/automation.md. */
export const FLOW_LIMITS = {
  /** Steps in a flow, nested ones included. */
  steps: 100,
  /** Nesting depth of branches. */
  depth: 5,
  /** Longest wait: 30 days. */
  waitSeconds: 30 * 24 * 3600,
  /** Records a query step reads at most. */
  queryLimit: 200,
  /** http step timeout bounds, milliseconds. */
  httpTimeoutMs: 60_000,
  httpDefaultTimeoutMs: 10_000,
  /** Response body an http step keeps, characters. */
  httpBodyChars: 100_000,
} as const;

/** A step as declared (all keys of every type; which keys suit which type is checked by the loader). */
export interface FlowStepDefinition {
  id: string;
  type: FlowStepType;
  label?: string;
  /** get, query, create, update, delete: the object. */
  object?: string;
  /** get, update, delete, action (record actions): CEL giving the record id. */
  recordId?: string;
  /** update: field -> CEL. */
  set?: Record<string, string>;
  /** create: field -> CEL. */
  values?: Record<string, string>;
  /** query: field -> CEL, equality conditions joined with and. */
  where?: Record<string, string>;
  orderBy?: Array<{ field: string; order?: 'asc' | 'desc' }>;
  limit?: number;
  /** branch: CEL bool. */
  when?: string;
  then?: FlowStepDefinition[];
  else?: FlowStepDefinition[];
  /** wait: a fixed delay, or CEL giving the instant to wait for. */
  seconds?: number;
  until?: string;
  /** action: the action's name; its input as name -> CEL. */
  action?: string;
  input?: Record<string, string>;
  /** email: CEL strings. notify: `to` is CEL giving a user id or a list of user ids. */
  to?: string;
  subject?: string;
  text?: string;
  html?: string;
  /** notify. */
  channels?: Array<(typeof FLOW_NOTIFY_CHANNELS)[number]>;
  title?: string;
  /** notify: CEL string; http: CEL giving the JSON body. */
  body?: string;
  link?: string;
  /** http. */
  method?: FlowHttpMethod;
  url?: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

export interface FlowRecordStart {
  object: string;
  on: FlowRecordEvent[];
  /** CEL bool over `record` (after the event; on delete, as it was); unset: every event. */
  when?: string;
}

export interface FlowScheduleStart {
  /** 5-field cron pattern, UTC. */
  cron: string;
}

export interface FlowTimeRelativeStart {
  object: string;
  /** A date or datetime field of the object. */
  field: string;
  /** Start once per record and offset, on the day `field + offset` (exactly one of offsetDays / withinDays). */
  offsetDays?: number[];
  /** Start once per record when `field` is within this many days from the sweep's day. */
  withinDays?: number;
}

export interface FlowStart {
  record?: FlowRecordStart;
  schedule?: FlowScheduleStart;
  timeRelative?: FlowTimeRelativeStart;
}

export interface FlowHook {
  /** snake_case: the last segment of POST /automation/hooks/:flowName/:hookId. */
  id: string;
  /** Name of the environment variable holding the HMAC secret. */
  secretEnv: string;
}

export interface FlowDefinition {
  name: string;
  label?: string;
  description?: string;
  type: FlowType;
  /** `caller` (default): as the user who started it; `system`: in a system context. */
  runAs?: FlowRunAs;
  input?: Record<string, ActionInputField>;
  start?: FlowStart;
  hook?: FlowHook;
  steps: FlowStepDefinition[];
}

/** What flow expressions see at run time. */
export interface FlowScope {
  input: Record<string, unknown>;
  /** Outputs of the steps that ran, by step id. */
  steps: Record<string, { status: string; output: unknown }>;
  record?: Record<string, unknown> | null;
  context?: ExpressionContext;
}

export interface CompiledFlowExpression {
  source: string;
  type: string;
  evaluate(scope: FlowScope): unknown;
}

export interface FlowAssignment {
  field: string;
  expression: CompiledFlowExpression;
}

/** A step with its expressions compiled; nested steps of a branch resolved likewise. */
export interface ResolvedFlowStep {
  id: string;
  type: FlowStepType;
  label: string;
  /** Where it is declared, e.g. `steps[1].then[0]`. */
  path: string;
  object?: string;
  recordId?: CompiledFlowExpression;
  assignments?: FlowAssignment[];
  where?: FlowAssignment[];
  orderBy?: Array<{ field: string; order: 'asc' | 'desc' }>;
  limit?: number;
  when?: CompiledFlowExpression;
  then?: ResolvedFlowStep[];
  else?: ResolvedFlowStep[];
  seconds?: number;
  until?: CompiledFlowExpression;
  action?: string;
  /** action: input name -> expression. */
  input?: Array<{ name: string; expression: CompiledFlowExpression }>;
  to?: CompiledFlowExpression;
  subject?: CompiledFlowExpression;
  text?: CompiledFlowExpression;
  html?: CompiledFlowExpression;
  channels?: Array<(typeof FLOW_NOTIFY_CHANNELS)[number]>;
  title?: CompiledFlowExpression;
  body?: CompiledFlowExpression;
  link?: CompiledFlowExpression;
  method?: FlowHttpMethod;
  url?: CompiledFlowExpression;
  headers?: Array<{ name: string; expression: CompiledFlowExpression }>;
  timeoutMs?: number;
}

export interface ResolvedFlow {
  name: string;
  label: string;
  description?: string;
  type: FlowType;
  runAs: FlowRunAs;
  input: Record<string, ActionInputField>;
  start: FlowStart | null;
  hook: FlowHook | null;
  /** record flows: the compiled `start.record.when`. */
  when?: CompiledFlowExpression;
  /** The object whose record is `record` in expressions (record and time-relative flows), or null. */
  recordObject: string | null;
  steps: ResolvedFlowStep[];
  /** The declaration as written (served by /meta/flow). */
  definition: FlowDefinition;
  source: string;
  app: string;
}

export const FLOW_RUN_STATUSES = ['running', 'waiting', 'completed', 'failed', 'cancelled'] as const;
export type FlowRunStatus = (typeof FLOW_RUN_STATUSES)[number];

export type FlowStepStatus = 'completed' | 'failed' | 'skipped' | 'waiting' | 'cancelled';

export interface FlowRunStep {
  id: string;
  status: FlowStepStatus;
  output: unknown;
  error: { code: string; message: string } | null;
}

export interface FlowRun {
  id: string;
  flow: string;
  status: FlowRunStatus;
  input: Record<string, unknown>;
  steps: FlowRunStep[];
  startedAt: string;
  endedAt: string | null;
  /** What started it. */
  trigger: string;
  /** `caller` or `system`. */
  runAs: FlowRunAs;
  /** The user who started it (null for system starts). */
  startedBy: string | null;
  /** Why it failed, when it did. */
  error: { code: string; message: string } | null;
}
