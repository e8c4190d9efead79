import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { objectView, type ViewDetail } from '../catalog.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { formatValue } from '../format.ts';
import { href } from '../route.ts';
import { noticeAuthError } from '../session.ts';
import { useList } from '../useList.ts';
import { useSubmit } from '../useSubmit.ts';

/** The object's trash: deleted records, each restorable. */
export function Trash({ object }: { object: string }) {
  const [detail, setDetail] = useState<ViewDetail | null>(null);
  const [failure, setFailure] = useState<unknown>(null);
  useEffect(() => { objectView(object).then(setDetail, (e) => { noticeAuthError(e); setFailure(e); }); }, [object]);
  const { items, error, reload } = useList(`/data/${object}/trash`, { limit: 100 });
  const restore = useSubmit(async (id: string) => {
    await api(`/data/${object}/${encodeURIComponent(id)}/restore`, { method: 'POST', body: {} });
    reload();
  });
  const name = detail?.nameField ?? null;
  return (
    <section class="trash">
      <header class="screen-head">
        {detail ? <p class="crumbs"><a href={href(`/views/${detail.name}`)}>{detail.pluralLabel}</a></p> : null}
        <h1>Trash{detail ? ` of ${detail.pluralLabel.toLowerCase()}` : ''}</h1>
      </header>
      <ErrorNotice error={failure ?? error ?? restore.error} />
      {items && items.length === 0 ? <p class="empty">The trash is empty.</p> : null}
      <ul class="trash-list">
        {(items ?? []).map((r) => (
          <li key={String(r.id)} data-id={String(r.id)}>
            <span>{name ? formatValue(r[name], detail?.fields[name], name) : String(r.id)}</span>
            <button type="button" disabled={restore.busy} onClick={() => void restore.run(String(r.id))}>Restore</button>
          </li>
        ))}
      </ul>
    </section>
  );
}
