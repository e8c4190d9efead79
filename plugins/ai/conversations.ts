import type { ActionsRegistry } from '../../capabilities/actionsRegistry.ts';
import type { DataContext, DataEngine, DataRecord } from '../../capabilities/dataEngine.ts';
import type { MetadataRegistry } from '../../capabilities/metadataRegistry.ts';
import { codedError } from '../../kernel/errors.ts';
import type { ResolvedAgent } from '../../metadata/agentTypes.ts';
import { runAgentLoop } from './agentLoop.ts';
import type { Caller, PendingActions } from './pendingActions.ts';
import type { EnvironmentCatalogs } from './environmentCatalogs.ts';
import type { ChatMessage, ToolCall } from './providerClient.ts';
import { runTool } from './runTool.ts';
import { toolSpecs } from './toolSpecs.ts';
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
  createdAt: string;
}

function messageView(row: DataRecord): MessageView {
  return {
    id: String(row.id),
    role: String(row.role),
    content: (row.content as string | null) ?? null,
    ...(row.tool_calls ? { toolCalls: row.tool_calls as ToolCall[] } : {}),
    ...(row.tool_call_id ? { toolCallId: String(row.tool_call_id) } : {}),
    createdAt: String(row.created_at),
  };
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

/**
 * Conversations: rows of the caller (reads go through the engine as the caller, so the
 * owner-private scope holds and another user's conversation is NOT_FOUND), and the agent turn.
 */
export function createConversations(deps: ConversationDeps) {
  const { engine } = deps;
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

  return {
    async create(caller: Caller, body: { agent?: string; title?: string }) {
      if (body.agent !== undefined && !agentOf(body.agent)) {
        const known = deps.metadata.apps().flatMap((a) => a.agents).map((a) => a.name);
        throw codedError('VALIDATION_ERROR', { summary: `unknown agent '${body.agent}'; agents: ${known.join(', ') || 'none'}`, errors: [{ path: 'body/agent', message: `unknown agent; agents: ${known.join(', ') || 'none'}` }] });
      }
      const row = await engine.create(CONVERSATION_OBJECT, { owner_id: caller.principal.userId, title: body.title ?? null, agent: body.agent ?? null }, system(caller));
      return conversationView(row);
    },

    async list(caller: Caller, page: { limit: number; offset: number }) {
      const result = await engine.query(CONVERSATION_OBJECT, { where: { owner_id: caller.principal.userId }, orderBy: [{ field: 'created_at', order: 'desc' }, { field: 'id', order: 'desc' }], limit: page.limit, offset: page.offset }, asCaller(caller));
      return { items: result.items.map(conversationView), total: result.total ?? result.items.length };
    },

    async get(caller: Caller, id: string) {
      const row = await own(caller, id);
      return { ...conversationView(row), messages: (await messagesOf(caller, id)).map(messageView) };
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

    /**
     * Appends the user message and runs the agent. Tool reads run as the caller. Nothing is stored
     * until the turn completes: then the user message and the new messages commit together; a
     * failed turn removes the pending actions it queued.
     */
    async send(caller: Caller, id: string, content: string, signal?: AbortSignal) {
      const conversation = await own(caller, id);
      const agent = agentOf((conversation.agent as string | null) ?? null);
      const { client, model } = await (await deps.catalogs.of(caller.environmentId)).resolve(agent?.model ?? undefined, signal);
      const key = `${caller.environmentId}:${caller.principal.userId}`;
      await deps.limiter.admit(key);
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
      return { messages: stored.map(messageView), usage: result.usage, stepLimitReached: result.stepLimitReached, pendingActions: queued };
    },
  };
}

export type Conversations = ReturnType<typeof createConversations>;
