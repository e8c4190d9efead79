import type { OutboxMessage } from '../../../../capabilities/devOutbox.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { useList } from '../useList.ts';

/** The development outbox (`GET /dev/outbox`): the mails and texts the log providers kept, newest first. */
export function Outbox() {
  const { items, error, reload } = useList<OutboxMessage>('/dev/outbox');
  return (
    <section class="outbox">
      <header class="screen-head">
        <h1>Outbox</h1>
        <button type="button" onClick={reload}>Refresh</button>
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
