import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ErrorNotice } from './ErrorNotice.tsx';

export interface ChatProps {
  /** The conversation open in the panel, or null. */
  id: string | null;
}

let loading: Promise<ComponentType<ChatProps>> | null = null;

/** The chat lives in a file of its own, loaded the first time it is opened: the initial script stays small. */
export function ChatLoader(props: ChatProps) {
  const [Screen, setScreen] = useState<ComponentType<ChatProps> | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    loading ??= import('../chat/ChatScreen.tsx').then((m) => m.ChatScreen);
    loading.then((c) => setScreen(() => c), (e: Error) => {
      loading = null;
      setError(new Error(`The chat could not be loaded (${e.message}): reload the page.`));
    });
  }, []);
  if (error) return <section><ErrorNotice error={error} /></section>;
  if (!Screen) return <section><p aria-busy="true">Loading…</p></section>;
  return <Screen {...props} />;
}
