import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { navigate } from '../route.ts';
import { useSubmit } from '../useSubmit.ts';
import type { Agent, Conversation } from './chatModel.ts';

/** Starts a conversation (`POST /ai/conversations`) with one of the agents, or with the default model and no tools. */
export function NewConversation({ agents, onCreated }: { agents: Agent[] | null; onCreated(): void }) {
  const [agent, setAgent] = useState('');
  const [title, setTitle] = useState('');
  useEffect(() => {
    if (agents && agents.length > 0 && agent === '') setAgent(agents[0]!.name);
  }, [agents]);
  const start = useSubmit(async () => {
    const created = await api<Conversation>('/ai/conversations', {
      method: 'POST', body: { ...(agent ? { agent } : {}), ...(title.trim() ? { title: title.trim() } : {}) },
    });
    setTitle('');
    onCreated();
    navigate(`/chat/${encodeURIComponent(created.id)}`);
  });
  const chosen = agents?.find((a) => a.name === agent);
  const described = [chosen?.description, chosen?.permission ? `Needs the permission ${chosen.permission}.` : undefined].filter(Boolean).join(' ');
  return (
    <form id="new-conversation" class="chat-new" onSubmit={(e) => start.onSubmit(e)}>
      <h2>New conversation</h2>
      <label for="chat-agent">Agent</label>
      <select id="chat-agent" value={agent} onChange={(e) => setAgent(e.currentTarget.value)} disabled={agents === null} aria-describedby={described ? 'chat-agent-description' : undefined}>
        {(agents ?? []).map((a) => <option key={a.name} value={a.name}>{a.label}</option>)}
        <option value="">No agent (the default model, no tools)</option>
      </select>
      {described ? <p class="muted" id="chat-agent-description">{described}</p> : null}
      <label for="chat-title">Title (optional)</label>
      <input id="chat-title" value={title} maxLength={200} onInput={(e) => setTitle(e.currentTarget.value)} />
      <button type="submit" class="primary" id="chat-start" disabled={start.busy || agents === null}>Start</button>
      <ErrorNotice error={start.error} />
    </form>
  );
}
