import { useEffect, useState } from 'preact/hooks';
import { api, type RequestOptions } from './api.ts';
import { noticeAuthError } from './session.ts';

export interface ListState<T> {
  /** null until the first answer. */
  items: T[] | null;
  error: unknown;
  /** Reads the list again. */
  reload(): void;
}

/**
 * The items of a list the API answers (`{ items }`), read again when the path, the query or
 * `deps` change and on reload(); a failure is kept for ErrorNotice (an ended session changes the screen).
 */
export function useList<T = Record<string, unknown>>(path: string, query?: RequestOptions['query'], deps: unknown[] = []): ListState<T> {
  const [items, setItems] = useState<T[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    api<{ items: T[] }>(path, { query }).then(
      (answer) => { if (live) { setItems(answer.items); setError(null); } },
      (e) => { noticeAuthError(e); if (live) setError(e); },
    );
    return () => { live = false; };
  }, [path, JSON.stringify(query), tick, ...deps]);
  return { items, error, reload: () => setTick((n) => n + 1) };
}
