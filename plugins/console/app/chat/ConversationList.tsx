import { api } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { href, navigate } from '../route.ts';
import { useSubmit } from '../useSubmit.ts';
import type { Conversation } from './chatModel.ts';

export const titleOf = (c: { title: string | null }) => c.title || 'Untitled conversation';

/** The user's conversations, newest first: each opens in the panel, or is deleted (`DELETE /ai/conversations/:id`). */
export function ConversationList({ items, open, agentLabel, onDeleted }: { items: Conversation[] | null; open: string | null; agentLabel(name: string | null): string; onDeleted(): void }) {
  const remove = useSubmit(async (c: Conversation) => {
    if (!window.confirm(`Delete the conversation "${titleOf(c)}" and its messages?`)) return;
    await api(`/ai/conversations/${encodeURIComponent(c.id)}`, { method: 'DELETE' });
    onDeleted();
    if (c.id === open) navigate('/chat', { replace: true });
  });
  if (items === null) return <p aria-busy="true">Loading…</p>;
  return (
    <>
      <ErrorNotice error={remove.error} />
      {items.length === 0 ? <p class="empty" id="no-conversations">No conversation yet.</p> : null}
      <ul class="conversation-list">
        {items.map((c) => (
          <li key={c.id} data-id={c.id} class={c.id === open ? 'open' : undefined}>
            <a href={href(`/chat/${encodeURIComponent(c.id)}`)} aria-current={c.id === open ? 'page' : undefined}>{titleOf(c)}</a>
            <span class="muted">{agentLabel(c.agent)} · <time dateTime={c.createdAt}>{new Date(c.createdAt).toLocaleString()}</time></span>
            <button type="button" class="link delete-conversation" disabled={remove.busy} aria-label={`Delete ${titleOf(c)}`} onClick={() => void remove.run(c)}>Delete</button>
          </li>
        ))}
      </ul>
    </>
  );
}
