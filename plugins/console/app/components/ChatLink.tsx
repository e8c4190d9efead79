import { signal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api } from '../api.ts';
import { environment, href } from '../route.ts';
import { currentUser } from '../session.ts';

/** Whether the conversation API answers the user (`ai:chat`), per environment and user. */
const chatAllowed = signal<{ key: string; allowed: boolean } | null>(null);

/** The navigation's link to the chat, for users the conversation API answers (asked once per environment and user). */
export function ChatLink() {
  const key = `${environment.value ?? ''}|${currentUser()?.id ?? ''}`;
  useEffect(() => {
    if (chatAllowed.value?.key === key) return;
    api('/ai/conversations', { query: { limit: 1 } }).then(
      () => { chatAllowed.value = { key, allowed: true }; },
      () => { chatAllowed.value = { key, allowed: false }; },
    );
  }, [key]);
  const known = chatAllowed.value;
  if (!known || known.key !== key || !known.allowed) return null;
  return <li><a id="chat-link" href={href('/chat')}>AI chat</a></li>;
}
