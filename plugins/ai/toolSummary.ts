import type { ToolCall } from './providerClient.ts';

/**
 * What a tool call did, as the user of the conversation is shown it: the tool, the object it
 * named, how many rows a query handed the model, the pending action a write queued, or the error
 * the model was answered. Counts and ids only, never the rows: the rows are the user's own read,
 * but a summary has no need of them.
 */
export interface ToolSummary {
  callId: string;
  name: string;
  /** The object the call named (its `object` argument; an action tool's object is its action's). */
  object: string | null;
  /** query_data: the rows (or groups) the model received. */
  rows?: number;
  /** query_data: more rows matched than the model received. */
  more?: boolean;
  /** validate_expression: whether the expression compiled. */
  valid?: boolean;
  /** A write tool: the kind of the pending action it queued, and its id. */
  kind?: 'create' | 'update' | 'delete' | 'action';
  pendingActionId?: string;
  /** The record an update, a delete or an action names. */
  recordId?: string;
  /** The error the model was answered, for a call it could correct. */
  error?: { code: string; message: string };
}

const KINDS: Record<string, ToolSummary['kind']> = { create_record: 'create', update_record: 'update', delete_record: 'delete' };

function argumentsOf(call: ToolCall | undefined): Record<string, unknown> {
  if (!call) return {};
  try {
    const parsed: unknown = JSON.parse(call.arguments);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed as Record<string, unknown> : {};
  } catch {
    return {};
  }
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value.slice(0, 200) : undefined);

/**
 * The summary of one tool call from the call (its name and arguments, as the model wrote them) and
 * the result answered to the model (or the stored tool message's content, JSON text). `call` is
 * undefined when the history no longer holds the assistant message that made it.
 */
export function summarizeTool(callId: string, call: ToolCall | undefined, result: unknown, actionObject?: (name: string) => string | null): ToolSummary {
  let answer = result;
  if (typeof answer === 'string') {
    try { answer = JSON.parse(answer); } catch { answer = null; }
  }
  const out = answer !== null && typeof answer === 'object' && !Array.isArray(answer) ? answer as Record<string, unknown> : {};
  const name = call?.name ?? '';
  const args = argumentsOf(call);
  const summary: ToolSummary = { callId, name, object: text(args.object) ?? (name.startsWith('action_') ? actionObject?.(name.slice('action_'.length)) ?? null : null) };
  const error = out.error as { code?: unknown; message?: unknown } | undefined;
  if (error && typeof error === 'object' && typeof error.code === 'string') {
    summary.error = { code: error.code, message: typeof error.message === 'string' ? error.message : '' };
    return summary;
  }
  if (Array.isArray(out.items)) {
    summary.rows = out.items.length;
    if (out.more === true) summary.more = true;
  }
  if (typeof out.valid === 'boolean') summary.valid = out.valid;
  if (typeof out.pendingActionId === 'string') {
    summary.pendingActionId = out.pendingActionId;
    summary.kind = KINDS[name] ?? 'action';
    const record = text(args.id) ?? text(args.recordId);
    if (record && summary.kind !== 'create') summary.recordId = record;
  }
  return summary;
}
