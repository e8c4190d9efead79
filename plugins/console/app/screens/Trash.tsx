import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { objectView, type ViewDetail } from '../catalog.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { formatValue } from '../format.ts';
import { href } from '../route.ts';
import { noticeAuthError } from '../session.ts';
import { useSubmit } from '../useSubmit.ts';

/** Records a trash page holds (the object's page size caps it). */
const PAGE = 50;

interface Page {
  items: Array<Record<string, unknown>>;
  total?: number;
  nextCursor?: string | null;
}

/** The object's trash: deleted records, each restorable, paged with the API's cursors as a list view is. */
export function Trash({ object }: { object: string }) {
  // undefined until the object's view is read (null: the user may use none).
  const [detail, setDetail] = useState<ViewDetail | null | undefined>(undefined);
  const [failure, setFailure] = useState<unknown>(null);
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const [page, setPage] = useState<Page | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    setCursors([undefined]);
    objectView(object).then(setDetail, (e) => { noticeAuthError(e); setFailure(e); });
  }, [object]);
  const cursor = cursors[cursors.length - 1];
  useEffect(() => {
    let live = true;
    api<Page>(`/data/${object}/trash`, { query: { limit: PAGE, cursor } }).then(
      (p) => {
        if (!live) return;
        // A restore can empty the last page: go back to the one before.
        if (p.items.length === 0 && cursors.length > 1) setCursors(cursors.slice(0, -1));
        else { setPage(p); setError(null); }
      },
      (e) => { noticeAuthError(e); if (live) setError(e); },
    );
    return () => { live = false; };
  }, [object, cursor, tick]);
  const restore = useSubmit(async (id: string) => {
    await api(`/data/${object}/${encodeURIComponent(id)}/restore`, { method: 'POST', body: {} });
    setTick((n) => n + 1);
  });
  const name = detail?.nameField ?? null;
  // The records are listed by their name, so not before the view that names them is read.
  const shown = detail !== undefined || failure ? page : null;
  const items = shown?.items ?? null;
  return (
    <section class="trash">
      <header class="screen-head">
        {detail ? <p class="crumbs"><a href={href(`/views/${detail.name}`)}>{detail.pluralLabel}</a></p> : null}
        <h1>Trash{detail ? ` of ${detail.pluralLabel.toLowerCase()}` : ''}</h1>
      </header>
      <ErrorNotice error={failure ?? error ?? restore.error} />
      <p class="total" id="trash-total" aria-live="polite">{shown?.total === undefined ? '' : `${shown.total.toLocaleString()} record${shown.total === 1 ? '' : 's'} in the trash`}</p>
      {items && items.length === 0 ? <p class="empty">The trash is empty.</p> : null}
      <ul class="trash-list">
        {(items ?? []).map((r) => (
          <li key={String(r.id)} data-id={String(r.id)}>
            <span>{name ? formatValue(r[name], detail?.fields[name], name) : String(r.id)}</span>
            <button type="button" disabled={restore.busy} onClick={() => void restore.run(String(r.id))}>Restore</button>
          </li>
        ))}
      </ul>
      {cursors.length > 1 || shown?.nextCursor ? (
        <nav class="pager" aria-label="Pages">
          <button type="button" id="trash-prev" disabled={cursors.length <= 1} onClick={() => setCursors(cursors.slice(0, -1))}>Previous</button>
          <span>Page {cursors.length}</span>
          <button type="button" id="trash-next" disabled={!shown?.nextCursor} onClick={() => shown?.nextCursor && setCursors([...cursors, shown.nextCursor])}>Next</button>
        </nav>
      ) : null}
    </section>
  );
}
