import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { loadViews, views } from '../catalog.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { href } from '../route.ts';
import { noticeAuthError } from '../session.ts';

interface Hit { object: string; id: string; score?: number; record?: Record<string, unknown>; highlights?: Record<string, string> }

/** Results of `/search` over every searchable object the user may read. */
export function Search({ q }: { q: string }) {
  const [hits, setHits] = useState<Hit[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    setHits(null);
    setError(null);
    if (!q.trim()) { setHits([]); return; }
    let live = true;
    // The hits are shown with their object's label: the views that name them are read first.
    Promise.all([api<{ items: Hit[] }>('/search', { query: { q } }), views.value ?? loadViews().catch(() => [])]).then(
      ([a]) => { if (live) setHits(a.items); },
      (e) => { noticeAuthError(e); if (live) setError(e); },
    );
    return () => { live = false; };
  }, [q]);
  const labelOf = (object: string) => (views.value ?? []).find((v) => v.object === object)?.objectLabel ?? object;
  return (
    <section class="search-results">
      <h1>Search: {q}</h1>
      <ErrorNotice error={error} />
      {hits && hits.length === 0 ? <p class="empty">Nothing found.</p> : null}
      <ul>
        {(hits ?? []).map((h) => {
          const record = h.record ?? {};
          const title = String(record.name ?? record.title ?? record.subject ?? Object.values(record).find((v) => typeof v === 'string' && v !== h.id) ?? h.id);
          return <li key={`${h.object}:${h.id}`}><a href={href(`/records/${h.object}/${encodeURIComponent(h.id)}`)}>{title}</a> <span class="muted">{labelOf(h.object)}</span></li>;
        })}
      </ul>
    </section>
  );
}
