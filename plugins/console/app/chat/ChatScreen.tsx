import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import type { ChatProps } from '../components/ChatLoader.tsx';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { useList } from '../useList.ts';
import type { Agent, Conversation } from './chatModel.ts';
import { ConversationList } from './ConversationList.tsx';
import { ConversationView } from './ConversationView.tsx';
import { NewConversation } from './NewConversation.tsx';

/**
 * The chat (`/chat`, `/chat/:id`): the user's conversations (`GET /ai/conversations`), a new one
 * with one of the agents (`GET /meta/agent`), and the open conversation with its turns streamed.
 */
export function ChatScreen({ id }: ChatProps) {
  const conversations = useList<Conversation>('/ai/conversations', { limit: 100 });
  const [agents, setAgents] = useState<Agent[] | null>(null);
  const [agentsError, setAgentsError] = useState<unknown>(null);
  useEffect(() => {
    api<{ items: Agent[] }>('/meta/agent').then((answer) => setAgents(answer.items), (e) => { setAgents([]); setAgentsError(e); });
  }, []);
  const agentLabel = (name: string | null) => (name === null ? 'No agent' : agents?.find((a) => a.name === name)?.label ?? name);
  return (
    <section class="chat">
      <header class="screen-head"><h1>AI chat</h1></header>
      <ErrorNotice error={conversations.error ?? agentsError} />
      <div class="chat-layout">
        <aside class="chat-side" aria-labelledby="conversations-title">
          <NewConversation agents={agents} onCreated={conversations.reload} />
          <h2 id="conversations-title">Conversations</h2>
          <ConversationList items={conversations.items} open={id} agentLabel={agentLabel} onDeleted={conversations.reload} />
        </aside>
        <div class="chat-panel">
          {id
            ? <ConversationView key={id} id={id} agentLabel={agentLabel} onTurn={conversations.reload} />
            : <p class="empty" id="chat-empty">Open a conversation, or start one with an agent.</p>}
        </div>
      </div>
    </section>
  );
}
