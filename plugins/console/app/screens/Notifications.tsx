import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { notificationTarget, refreshUnread } from '../inbox.ts';
import { href, navigate } from '../route.ts';
import { useList } from '../useList.ts';
import { useSubmit } from '../useSubmit.ts';

interface Notification {
  id: string;
  title: string;
  body: string;
  link: string | null;
  record: { object: string; id: string } | null;
  source: string;
  read: boolean;
  createdAt: string;
}

/** The user's in-app notifications, newest first: open one (it is marked read), mark one or all read. */
export function Notifications() {
  const [onlyUnread, setOnlyUnread] = useState(false);
  const { items, error, reload } = useList<Notification>('/notifications', { limit: 50, unread: onlyUnread ? 'true' : undefined });
  const after = () => { reload(); void refreshUnread(); };
  const mark = useSubmit(async (id: string) => { await api(`/notifications/${encodeURIComponent(id)}/read`, { method: 'POST', body: {} }); after(); });
  const markAll = useSubmit(async () => { await api('/notifications/read-all', { method: 'POST', body: {} }); after(); });
  const open = useSubmit(async (n: Notification, target: string) => {
    if (!n.read) await api(`/notifications/${encodeURIComponent(n.id)}/read`, { method: 'POST', body: {} });
    void refreshUnread();
    navigate(target);
  });
  return (
    <section class="notifications">
      <header class="screen-head">
        <h1>Notifications</h1>
        <div class="actions">
          <label class="inline"><input type="checkbox" id="only-unread" checked={onlyUnread} onChange={(e) => setOnlyUnread(e.currentTarget.checked)} /> Unread only</label>
          <button type="button" id="mark-all-read" disabled={markAll.busy} onClick={() => void markAll.run()}>Mark all read</button>
        </div>
      </header>
      <ErrorNotice error={error ?? mark.error ?? markAll.error ?? open.error} />
      {items && items.length === 0 ? <p class="empty">{onlyUnread ? 'No unread notification.' : 'No notification yet.'}</p> : null}
      <ul class="notification-list">
        {(items ?? []).map((n) => {
          const target = notificationTarget(n);
          return (
            <li key={n.id} data-id={n.id} class={n.read ? 'read' : 'unread'}>
              <article aria-label={`${n.read ? '' : 'Unread: '}${n.title}`}>
                <h2>
                  {target
                    ? <a href={href(target)} onClick={(e) => { e.preventDefault(); void open.run(n, target); }}>{n.title}</a>
                    : n.title}
                  {n.read ? null : <span class="badge">new</span>}
                </h2>
                <p>{n.body}</p>
                <p class="meta muted">
                  <time dateTime={n.createdAt}>{new Date(n.createdAt).toLocaleString()}</time>
                  {n.link && !target ? <> · <a href={n.link} rel="noreferrer">{n.link}</a></> : null}
                </p>
                {n.read ? null : <button type="button" class="mark-read" disabled={mark.busy} onClick={() => void mark.run(n.id)}>Mark read</button>}
              </article>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
