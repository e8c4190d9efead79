import type { ActionsRegistry } from '../../capabilities/actionsRegistry.ts';
import type { DataContext, DataEngine, DataRecord } from '../../capabilities/dataEngine.ts';
import type { MetadataRegistry } from '../../capabilities/metadataRegistry.ts';
import { codedError } from '../../kernel/errors.ts';
import { holdsPermission } from '../../capabilities/holdsPermission.ts';
import type { ResolvedAgent } from '../../metadata/agentTypes.ts';
import { runAgentLoop } from './agentLoop.ts';
import type { Caller, PendingActions } from './pendingActions.ts';
import type { EnvironmentCatalogs } from './environmentCatalogs.ts';
import type { ChatMessage, ProviderClient, ToolCall } from './providerClient.ts';
import { runTool } from './runTool.ts';
import { toolSpecs } from './toolSpecs.ts';
import { summarizeTool, type ToolSummary } from './toolSummary.ts';
import type { AiUsageLimiter } from './sharedUsageLimiter.ts';

export const CONVERSATION_OBJECT = 'sys_ai_conversation';
export const MESSAGE_OBJECT = 'sys_ai_message';
/** Stored messages a turn sends the model at most (the newest ones). */
const HISTORY_LIMIT = 200;

export interface MessageView {
  id: string;
  role: string;
  content: string | null;
  toolCalls?: ToolCall[];
  toolCallId?: string;
  /** A tool message: what its call did (the object, the rows, the pending action), without the rows. */
  tool?: ToolSummary;
  createdAt: string;
}

/** Messages in order; a tool message carries the summary of its call (found in the assistant message that made it). */
function messageViews(rows: DataRecord[], actionObject: (name: string) => string | null): MessageView[] {
  const calls = new Map<string, ToolCall>();
  return rows.map((row) => {
    const toolCalls = row.tool_calls ? row.tool_calls as ToolCall[] : null;
    for (const call of toolCalls ?? []) calls.set(call.id, call);
    const callId = row.tool_call_id ? String(row.tool_call_id) : null;
    return {
      id: String(row.id),
      role: String(row.role),
      content: (row.content as string | null) ?? null,
      ...(toolCalls ? { toolCalls } : {}),
      ...(callId ? { toolCallId: callId } : {}),
      ...(callId && row.role === 'tool' ? { tool: summarizeTool(callId, calls.get(callId), row.content, actionObject) } : {}),
      createdAt: String(row.created_at),
    };
  });
}

/** Who watches a turn as it runs: the model's text as it arrives, each tool call once it ran. */
export interface TurnObserver {
  delta(content: string): void;
  tool(summary: ToolSummary): void;
}

/** An agent that declares `permission` talks only to holders of that key (admins hold every key): else 403 PERMISSION_DENIED naming the key and the agent. */
function requireAgentPermission(caller: Caller, agent: ResolvedAgent): void {
  if (agent.permission !== null && !holdsPermission(caller.principal, agent.permission)) {
    throw codedError('PERMISSION_DENIED', { permission: agent.permission, agent: agent.name, subjectId: caller.principal.userId });
  }
}

export function conversationView(row: DataRecord) {
  return { id: String(row.id), title: (row.title as string | null) ?? null, agent: (row.agent as string | null) ?? null, createdAt: String(row.created_at), updatedAt: String(row.updated_at) };
}

export interface ConversationDeps {
  engine: DataEngine;
  metadata: MetadataRegistry;
  actions: () => ActionsRegistry | undefined;
  catalogs: EnvironmentCatalogs;
  limiter: AiUsageLimiter;
  pending: PendingActions;
  maxSteps: number;
  maxToolRows: number;
}

const asCaller = (caller: Caller): DataContext => ({ environmentId: caller.environmentId, principal: caller.principal, requestId: caller.requestId });
const system = (caller: Caller): DataContext => ({ environmentId: caller.environmentId, principal: null, system: true, requestId: caller.requestId });

interface TurnRun {
  agent: ResolvedAgent | null;
  client: ProviderClient;
  model: string;
  /** The caller's key in the usage limiter. */
  key: string;
  signal?: AbortSignal;
  observe?: TurnObserver;
}

/**
 * Conversations: rows of the caller (reads go through the engine as the caller, so the
 * owner-private scope holds and another user's conversation is NOT_FOUND), and the agent turn.
 */
export function createConversations(deps: ConversationDeps) {
  const { engine } = deps;
  const actionObject = (name: string) => deps.actions()?.get(name)?.object ?? null;
  const agentOf = (name: string | null): ResolvedAgent | null => {
    if (name === null) return null;
    return deps.metadata.apps().flatMap((a) => a.agents).find((a) => a.name === name) ?? null;
  };

  async function own(caller: Caller, id: string): Promise<DataRecord> {
    const row = await engine.get(CONVERSATION_OBJECT, id, {}, asCaller(caller)).catch((error: unknown) => {
      if ((error as { code?: string }).code === 'NOT_FOUND') return null;
      throw error;
    });
    // Owner-private already; checked again so that no grant ever shows another user's conversation.
    if (!row || String(row.owner_id) !== caller.principal.userId) throw codedError('NOT_FOUND', { what: `Conversation '${id.slice(0, 64)}'` });
    return row;
  }

  async function messagesOf(caller: Caller, id: string): Promise<DataRecord[]> {
    const result = await engine.query(MESSAGE_OBJECT, { where: { conversation_id: id }, orderBy: [{ field: 'seq', order: 'desc' }], limit: HISTORY_LIMIT }, asCaller(caller), { total: false });
    return result.items.reverse();
  }

  /** One turn: the agent loop over the stored history and the new message, then the messages stored. */
  async function turn(caller: Caller, id: string, content: string, run: TurnRun) {
    const { agent, client, model, key, signal, observe } = run;
    const history = await messagesOf(caller, id);
    const messages: ChatMessage[] = [
      ...(agent ? [{ role: 'system' as const, content: agent.instructions }] : []),
      ...history.map((row): ChatMessage => ({
        role: row.role as ChatMessage['role'],
        content: (row.content as string | null) ?? null,
        ...(row.tool_calls ? { toolCalls: row.tool_calls as ToolCall[] } : {}),
        ...(row.tool_call_id ? { toolCallId: String(row.tool_call_id) } : {}),
      })),
      { role: 'user', content },
    ];
    const allowed = agent?.tools ?? [];
    const queued: string[] = [];
    const toolDeps = {
      engine, metadata: deps.metadata, actions: deps.actions(), maxRows: deps.maxToolRows, ctx: asCaller(caller), allowed,
      agent: { name: agent?.name ?? '', accessObjects: agent?.accessObjects ?? [] },
      propose: async (proposal: Parameters<typeof deps.pending.propose>[1]) => {
        const pendingId = await deps.pending.propose({ environmentId: caller.environmentId, owner: caller.principal.userId, conversationId: id }, proposal);
        queued.push(pendingId);
        return pendingId;
      },
    };
    let result;
    try {
      result = await runAgentLoop({
        client, model, messages, signal, maxSteps: deps.maxSteps,
        tools: agent ? toolSpecs(agent, deps.metadata, deps.actions(), deps.maxToolRows) : [],
        execute: (call) => runTool(toolDeps, call),
        ...(observe ? { onDelta: (text: string) => observe.delta(text), onTool: (call: ToolCall, answer: unknown) => observe.tool(summarizeTool(call.id, call, answer, actionObject)) } : {}),
      });
    } catch (error) {
      await deps.pending.discard(caller.environmentId, queued);
      throw error;
    }
    await deps.limiter.spend(key, result.usage.totalTokens);
    const start = history.length === 0 ? 0 : Number(history[history.length - 1]!.seq) + 1;
    const stored = await engine.transaction(system(caller), async (trx) => {
      const rows: DataRecord[] = [];
      const all: ChatMessage[] = [{ role: 'user', content }, ...result.messages];
      for (const [i, m] of all.entries()) {
        rows.push(await trx.create(MESSAGE_OBJECT, {
          owner_id: caller.principal.userId, conversation_id: id, seq: start + i, role: m.role, content: m.content,
          tool_calls: m.toolCalls && m.toolCalls.length > 0 ? m.toolCalls : null, tool_call_id: m.toolCallId ?? null,
        }, system(caller)));
      }
      return rows;
    }).catch(async (error: unknown) => {
      await deps.pending.discard(caller.environmentId, queued);
      throw error;
    });
    return { messages: messageViews(stored, actionObject), usage: result.usage, stepLimitReached: result.stepLimitReached, pendingActions: queued };
  }

  /**
   * Checks what a turn needs before it runs (the conversation is the caller's, the model is
   * known, the caller is within the limits), then answers the turn to run: it appends the user
   * message and runs the agent, telling `observe` what happens as it happens. Tool reads run as
   * the caller. Nothing is stored until the turn completes: then the user message and the new
   * messages commit together; a failed turn removes the pending actions it queued.
   */
  async function begin(caller: Caller, id: string, content: string, signal?: AbortSignal) {
    const conversation = await own(caller, id);
    const agent = agentOf((conversation.agent as string | null) ?? null);
    // Checked at every turn: a caller who lost the agent's permission key since the conversation began talks to it no more.
    if (agent) requireAgentPermission(caller, agent);
    const { client, model } = await (await deps.catalogs.of(caller.environmentId)).resolve(agent?.model ?? undefined, signal);
    const key = `${caller.environmentId}:${caller.principal.userId}`;
    await deps.limiter.admit(key);
    return (observe?: TurnObserver) => turn(caller, id, content, { agent, client, model, key, signal, observe });
  }

  return {
    async create(caller: Caller, body: { agent?: string; title?: string }) {
      if (body.agent !== undefined && !agentOf(body.agent)) {
        const known = deps.metadata.apps().flatMap((a) => a.agents).map((a) => a.name);
        throw codedError('VALIDATION_ERROR', { summary: `unknown agent '${body.agent}'; agents: ${known.join(', ') || 'none'}`, errors: [{ path: 'body/agent', message: `unknown agent; agents: ${known.join(', ') || 'none'}` }] });
      }
      const agent = body.agent !== undefined ? agentOf(body.agent) : null;
      if (agent) requireAgentPermission(caller, agent);
      const row = await engine.create(CONVERSATION_OBJECT, { owner_id: caller.principal.userId, title: body.title ?? null, agent: body.agent ?? null }, system(caller));
      return conversationView(row);
    },

    async list(caller: Caller, page: { limit: number; offset: number }) {
      const result = await engine.query(CONVERSATION_OBJECT, { where: { owner_id: caller.principal.userId }, orderBy: [{ field: 'created_at', order: 'desc' }, { field: 'id', order: 'desc' }], limit: page.limit, offset: page.offset }, asCaller(caller));
      return { items: result.items.map(conversationView), total: result.total ?? result.items.length };
    },

    async get(caller: Caller, id: string) {
      const row = await own(caller, id);
      return { ...conversationView(row), messages: messageViews(await messagesOf(caller, id), actionObject) };
    },

    async remove(caller: Caller, id: string) {
      await own(caller, id);
      await engine.transaction(system(caller), async (trx) => {
        for (;;) {
          const batch = await trx.query(MESSAGE_OBJECT, { where: { conversation_id: id }, limit: 200, fields: ['id'] }, system(caller), { total: false });
          if (batch.items.length === 0) break;
          for (const m of batch.items) await trx.delete(MESSAGE_OBJECT, String(m.id), {}, system(caller));
        }
        await trx.delete(CONVERSATION_OBJECT, id, {}, system(caller));
      });
    },

    begin,

    /** Appends the user message and runs the agent (begin, then its turn). */
    async send(caller: Caller, id: string, content: string, signal?: AbortSignal) {
      return (await begin(caller, id, content, signal))();
    },
  };
}

export type Conversations = ReturnType<typeof createConversations>;
