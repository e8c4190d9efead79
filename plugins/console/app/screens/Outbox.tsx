import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { noticeAuthError } from '../session.ts';

interface OutboxMessage {
  id: string;
  channel: 'email' | 'sms';
  to: string;
  subject: string | null;
  text: string;
  links: string[];
  sentAt: string;
}

/** The development outbox (`GET /dev/outbox`): the mails and texts the log providers kept, newest first. */
export function Outbox() {
  const [items, setItems] = useState<OutboxMessage[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [reload, setReload] = useState(0);
  useEffect(() => {
    void (async () => {
      try {
        setItems((await api<{ items: OutboxMessage[] }>('/dev/outbox')).items);
        setError(null);
      } catch (e) {
        noticeAuthError(e);
        setError(e);
      }
    })();
  }, [reload]);
  return (
    <section class="outbox">
      <header class="screen-head">
        <h1>Outbox</h1>
        <button type="button" onClick={() => setReload(reload + 1)}>Refresh</button>
      </header>
      <p>Emails and text messages the development providers kept instead of sending (the last 200). Production keeps none.</p>
      <ErrorNotice error={error} />
      {items && items.length === 0 ? <p class="empty">Nothing was sent yet.</p> : null}
      <ul class="outbox-list">
        {(items ?? []).map((m) => (
          <li key={m.id} data-id={m.id}>
            <article aria-label={`${m.channel === 'email' ? 'Email' : 'Text message'} to ${m.to}`}>
              <h2>{m.subject ?? 'Text message'}</h2>
              <p class="meta">{m.channel === 'email' ? 'Email' : 'SMS'} to {m.to}, <time dateTime={m.sentAt}>{new Date(m.sentAt).toLocaleString()}</time></p>
              <pre class="outbox-text">{m.text}</pre>
              {m.links.length > 0 ? (
                <ul class="outbox-links">{m.links.map((l) => <li key={l}><a href={l} rel="noreferrer">{l}</a></li>)}</ul>
              ) : null}
            </article>
          </li>
        ))}
      </ul>
    </section>
  );
}
