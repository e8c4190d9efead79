/** The shapes of the conversation API's answers (docs/ai.md, Conversations) and how the chat shows them. */

/** What a tool call did: counts and ids, never rows (`tool` of a tool message, the stream's `tool` event). */
import type { ToolSummary } from '../../../ai/toolSummary.ts';

export type { ToolSummary };

export interface ChatMessage {
  id: string;
  role: string;
  content: string | null;
  toolCallId?: string;
  tool?: ToolSummary;
  createdAt: string;
}

export interface Conversation {
  id: string;
  title: string | null;
  agent: string | null;
  createdAt: string;
  updatedAt?: string;
}

export interface TurnAnswer {
  messages: ChatMessage[];
  stepLimitReached: boolean;
  pendingActions: string[];
}

/** An agent as `GET /meta/agent` lists it. */
export interface Agent {
  name: string;
  label: string;
  description?: string;
  /** The permission key a caller needs to talk to it (admins hold every key); null: every holder of ai:chat. */
  permission?: string | null;
}

/** One line of the conversation as shown: a message of the user or of the model, or a tool call. */
export type LogItem =
  | { kind: 'user' | 'assistant'; key: string; text: string }
  | { kind: 'tool'; key: string; tool: ToolSummary };

/** The stored messages as the chat shows them: text of the user and the model, each tool call by its summary. */
export function logItems(messages: ChatMessage[]): LogItem[] {
  const out: LogItem[] = [];
  for (const m of messages) {
    if (m.role === 'tool') {
      if (m.tool) out.push({ kind: 'tool', key: m.id, tool: m.tool });
    } else if ((m.role === 'user' || m.role === 'assistant') && m.content) {
      out.push({ kind: m.role, key: m.id, text: m.content });
    }
  }
  return out;
}

/** An object's labels as the user reads them: singular and plural. */
export type ObjectLabels = (object: string) => { label: string; plural: string };

const VERBS = { create: 'Create', update: 'Update', delete: 'Delete', action: 'Run' } as const;

/** A tool call in words: which object it queried and how many rows the model got, what it proposed, or why it was refused. */
export function toolText(tool: ToolSummary, labels: ObjectLabels): string {
  const named = tool.object ? labels(tool.object) : null;
  if (tool.error) return `${tool.name || 'A tool'}${named ? ` on ${named.plural}` : ''} was refused: ${tool.error.message}`;
  if (tool.name === 'query_data') {
    const rows = tool.rows ?? 0;
    return `Queried ${named?.plural ?? 'records'}: ${rows} ${rows === 1 ? 'row' : 'rows'}${tool.more ? ' (more matched)' : ''}`;
  }
  if (tool.name === 'validate_expression') return `Checked an expression on ${named?.plural ?? 'an object'}: ${tool.valid ? 'valid' : 'not valid'}`;
  if (tool.kind) {
    if (tool.kind === 'action') return `Proposed: run ${tool.name.replace(/^action_/, '')}${named ? ` on a ${named.label}` : ''}`;
    return `Proposed: ${VERBS[tool.kind]} ${named?.label ?? 'a record'}`;
  }
  return `Called ${tool.name || 'a tool'}`;
}
