import { useEffect, useState } from 'preact/hooks';
import { api, type RequestOptions } from '../api.ts';
import { noticeAuthError } from '../session.ts';

export interface Answer<T> {
  /** null until the first answer. */
  data: T | null;
  error: unknown;
  /** Reads it again. */
  reload(): void;
}

/**
 * One answer of the API, read again when the path or the query change and on reload(); with
 * `everyMs`, also every so often while `keepPolling(data)` holds (a run still going).
 */
export function useAnswer<T>(path: string | null, query?: RequestOptions['query'], poll?: { everyMs: number; while(data: T): boolean }): Answer<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (path === null) return;
    let live = true;
    api<T>(path, { query }).then(
      (answer) => { if (live) { setData(answer); setError(null); } },
      (e) => { noticeAuthError(e); if (live) setError(e); },
    );
    return () => { live = false; };
  }, [path, JSON.stringify(query), tick]);
  const polling = poll !== undefined && data !== null && poll.while(data);
  useEffect(() => {
    if (!polling) return;
    const timer = setTimeout(() => setTick((n) => n + 1), poll!.everyMs);
    return () => clearTimeout(timer);
  }, [polling, data]);
  return { data, error, reload: () => setTick((n) => n + 1) };
}
