import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { href } from '../route.ts';
import { noticeAuthError } from '../session.ts';
import { logItems, type ChatMessage, type Conversation, type LogItem } from './chatModel.ts';
import { titleOf } from './ConversationList.tsx';
import { streamTurn } from './streamTurn.ts';
import { ToolLine } from './ToolLine.tsx';

/** The turn being answered: the user's message, then what arrived so far (text and tool calls). */
interface Live {
  text: string;
  items: LogItem[];
}

function Line({ item, live }: { item: LogItem; live?: boolean }) {
  if (item.kind === 'tool') return <ToolLine tool={item.tool} />;
  return (
    <li class={`message ${item.kind}${live ? ' live' : ''}`}>
      <span class="speaker">{item.kind === 'user' ? 'You' : 'Model'}</span>
      <p class="text">{item.text}</p>
    </li>
  );
}

/**
 * One conversation (`GET /ai/conversations/:id`): its history, and a message box whose turn is
 * streamed (`POST /ai/conversations/:id/messages/stream`): the model's text as it arrives, each
 * tool call as it runs; Stop aborts the turn, which then keeps nothing.
 */
export function ConversationView({ id, agentLabel, onTurn }: { id: string; agentLabel(name: string | null): string; onTurn(): void }) {
  const [conversation, setConversation] = useState<(Conversation & { messages: ChatMessage[] }) | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [draft, setDraft] = useState('');
  const [live, setLive] = useState<Live | null>(null);
  const [turnError, setTurnError] = useState<unknown>(null);
  const [notice, setNotice] = useState('');
  const stop = useRef<AbortController | null>(null);
  const end = useRef<HTMLDivElement>(null);
  useEffect(() => {
    api<Conversation & { messages: ChatMessage[] }>(`/ai/conversations/${encodeURIComponent(id)}`).then(setConversation, (e) => { noticeAuthError(e); setError(e); });
    return () => stop.current?.abort();
  }, [id]);
  useEffect(() => { end.current?.scrollIntoView?.({ block: 'nearest' }); }, [live, conversation]);

  const send = async (event: Event) => {
    event.preventDefault();
    const content = draft.trim();
    if (!content || live) return;
    const controller = new AbortController();
    stop.current = controller;
    setTurnError(null);
    setNotice('');
    setDraft('');
    let state: Live = { text: content, items: [] };
    setLive(state);
    const update = (items: LogItem[]) => { state = { ...state, items }; setLive(state); };
    try {
      const answer = await streamTurn(id, content, {
        delta(text) {
          const last = state.items.at(-1);
          if (last?.kind === 'assistant') update([...state.items.slice(0, -1), { ...last, text: last.text + text }]);
          else update([...state.items, { kind: 'assistant', key: `live-${state.items.length}`, text }]);
        },
        tool(tool) { update([...state.items, { kind: 'tool', key: `live-${state.items.length}`, tool }]); },
      }, controller.signal);
      setConversation((c) => (c ? { ...c, messages: [...c.messages, ...answer.messages] } : c));
      if (answer.stepLimitReached) setNotice('The model reached its step limit for this turn: ask it to go on.');
      onTurn();
    } catch (e) {
      noticeAuthError(e);
      setTurnError(e);
      // Nothing of a failed turn is kept: the message goes back to the box.
      setDraft(content);
    } finally {
      stop.current = null;
      setLive(null);
    }
  };

  if (error instanceof ApiError && error.status === 404) {
    return <div class="not-found"><h2 class="conversation-title">Not found</h2><p>There is no such conversation, or it is not yours.</p><p><a href={href('/chat')}>Back to the conversations</a></p></div>;
  }
  if (!conversation) return <div><ErrorNotice error={error} />{error ? null : <p aria-busy="true">Loading…</p>}</div>;
  const items = logItems(conversation.messages);
  return (
    <div class="conversation" data-id={id}>
      <h2 class="conversation-title" id="conversation-title">{titleOf(conversation)}</h2>
      <p class="muted" id="conversation-agent">{agentLabel(conversation.agent)}</p>
      {items.length === 0 && !live ? <p class="empty" id="conversation-empty">No message yet: ask something.</p> : null}
      <ol class="chat-log" aria-labelledby="conversation-title" aria-busy={live ? 'true' : 'false'}>
        {items.map((item) => <Line key={item.key} item={item} />)}
        {live ? (
          <>
            <Line item={{ kind: 'user', key: 'live-user', text: live.text }} live />
            {live.items.map((item) => <Line key={item.key} item={item} live />)}
          </>
        ) : null}
      </ol>
      <div ref={end} />
      <p role="status" id="chat-status" class="muted">{live ? 'Answering…' : notice}</p>
      <ErrorNotice error={turnError} />
      <form id="chat-form" class="chat-compose" onSubmit={(e) => void send(e)}>
        <label for="chat-message">Message</label>
        <textarea
          id="chat-message" rows={3} value={draft} maxLength={100_000}
          onInput={(e) => setDraft(e.currentTarget.value)}
          onKeyDown={(e) => { if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) void send(e); }}
        />
        <div class="form-actions">
          <button type="submit" class="primary" id="chat-send" disabled={!!live || draft.trim() === ''}>Send</button>
          {live ? <button type="button" id="chat-stop" onClick={() => stop.current?.abort()}>Stop</button> : null}
        </div>
      </form>
    </div>
  );
}
