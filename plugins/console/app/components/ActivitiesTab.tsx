import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { noticeAuthError, session } from '../session.ts';
import { ErrorNotice } from './ErrorNotice.tsx';

/** Items a page of the timeline holds. */
const PAGE = 20;

interface Activity {
  kind: string;
  at: string;
  by: string | null;
  summary: string;
  ref: Record<string, string>;
  data: Record<string, unknown>;
}

/** What an item shows under its summary: a comment's text, a file's name, a mail's subject. */
function detailOf(item: Activity): string {
  if (item.kind === 'comment') return String(item.data.body ?? '');
  if (item.kind === 'file') return String(item.data.name ?? '');
  return '';
}

/**
 * The record's timeline (`GET /data/:object/:id/activities`): history, comments, files, approval
 * requests and mails in one list, newest first, as the API filters them for the user; more pages
 * on demand with its cursor. Read again when the record's version changes.
 */
export function ActivitiesTab({ base, version }: { base: string; version: unknown }) {
  const [items, setItems] = useState<Activity[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const read = async (cursor: string | null, before: Activity[]) => {
    setBusy(true);
    try {
      const page = await api<{ items: Activity[]; nextCursor: string | null }>(`${base}/activities`, { query: { limit: PAGE, cursor: cursor ?? undefined } });
      setItems([...before, ...page.items]);
      setNext(page.nextCursor);
      setError(null);
    } catch (e) {
      noticeAuthError(e);
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  useEffect(() => { void read(null, []); }, [base, version]);
  const me = session.value.status === 'signedIn' ? session.value.user.id : null;
  return (
    <div class="activities">
      <ErrorNotice error={error} />
      {items && items.length === 0 ? <p class="empty">Nothing happened to this record yet.</p> : null}
      <ol class="activity-list">
        {(items ?? []).map((item, i) => {
          const detail = detailOf(item);
          return (
            <li key={`${item.kind}:${Object.values(item.ref).join(':')}:${i}`} data-kind={item.kind}>
              <strong>{item.summary}</strong>
              <small> · {new Date(item.at).toLocaleString()}{item.by && item.by === me ? ' · you' : ''}</small>
              {detail ? <p>{detail}</p> : null}
            </li>
          );
        })}
      </ol>
      {next ? <button type="button" id="activities-more" disabled={busy} onClick={() => void read(next, items ?? [])}>More</button> : null}
    </div>
  );
}
