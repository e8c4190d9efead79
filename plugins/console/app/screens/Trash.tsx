import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { objectView, type ViewDetail } from '../catalog.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { formatValue } from '../format.ts';
import { href } from '../route.ts';
import { noticeAuthError } from '../session.ts';

/** The object's trash: deleted records, each restorable. */
export function Trash({ object }: { object: string }) {
  const [detail, setDetail] = useState<ViewDetail | null>(null);
  const [items, setItems] = useState<Array<Record<string, unknown>> | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [reload, setReload] = useState(0);
  useEffect(() => {
    void (async () => {
      try {
        const view = await objectView(object);
        setDetail(view);
        setItems((await api<{ items: Array<Record<string, unknown>> }>(`/data/${object}/trash`, { query: { limit: 100 } })).items);
      } catch (e) {
        noticeAuthError(e);
        setError(e);
      }
    })();
  }, [object, reload]);
  const restore = async (id: string) => {
    try {
      await api(`/data/${object}/${encodeURIComponent(id)}/restore`, { method: 'POST', body: {} });
      setReload(reload + 1);
    } catch (e) {
      setError(e);
    }
  };
  const name = detail?.nameField ?? null;
  return (
    <section class="trash">
      <header class="screen-head">
        {detail ? <p class="crumbs"><a href={href(`/views/${detail.name}`)}>{detail.pluralLabel}</a></p> : null}
        <h1>Trash{detail ? ` of ${detail.pluralLabel.toLowerCase()}` : ''}</h1>
      </header>
      <ErrorNotice error={error} />
      {items && items.length === 0 ? <p class="empty">The trash is empty.</p> : null}
      <ul class="trash-list">
        {(items ?? []).map((r) => (
          <li key={String(r.id)} data-id={String(r.id)}>
            <span>{name ? formatValue(r[name], detail?.fields[name], name) : String(r.id)}</span>
            <button type="button" onClick={() => void restore(String(r.id))}>Restore</button>
          </li>
        ))}
      </ul>
    </section>
  );
}
