import { useState } from 'preact/hooks';
import { ACTION_STATUS, describeAction, type PendingAction } from '../aiActions.ts';
import { views } from '../catalog.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { person } from '../inbox.ts';
import { useRecordNames } from '../recordNames.ts';
import { href } from '../route.ts';
import { useList } from '../useList.ts';

/** The AI approval queue (`GET /ai/pending-actions`): what models proposed, pending first; each opens its diff. */
export function AiActions() {
  const [status, setStatus] = useState('pending');
  const { items, error, reload } = useList<PendingAction>('/ai/pending-actions', { status: status || undefined, limit: 100 });
  const names = useRecordNames((items ?? []).flatMap((a) => (a.object && a.recordId ? [{ object: a.object, id: a.recordId }] : [])));
  const objectLabel = (object: string | null) => (object ? (views.value ?? []).find((v) => v.object === object)?.objectLabel ?? object : '');
  return (
    <section class="ai-actions">
      <header class="screen-head">
        <h1>AI actions</h1>
        <div class="actions">
          <label for="ai-status" class="visually-hidden">Show</label>
          <select id="ai-status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            <option value="pending">Pending</option>
            <option value="">All</option>
            <option value="applied">Applied</option>
            <option value="rejected">Rejected</option>
            <option value="failed">Failed</option>
            <option value="expired">Expired</option>
          </select>
          <button type="button" onClick={reload}>Refresh</button>
        </div>
      </header>
      <p>Changes a model proposed in a conversation. Nothing is written until a holder of <code>ai:approve</code> approves it.</p>
      <ErrorNotice error={error} />
      {items && items.length === 0 ? <p class="empty">No action to show.</p> : null}
      <ul class="action-list">
        {(items ?? []).map((a) => (
          <li key={a.id} data-id={a.id} data-status={a.status}>
            <a href={href(`/ai-actions/${encodeURIComponent(a.id)}`)}>{describeAction(a, objectLabel(a.object))}{a.object && a.recordId ? ` ${names.get(`${a.object}:${a.recordId}`) ?? a.recordId}` : ''}</a>
            <span class={`status status-${a.status}`}>{ACTION_STATUS[a.status] ?? a.status}</span>
            <span class="muted">proposed by {person(a.proposedBy, a.people)}, <time dateTime={a.createdAt}>{new Date(a.createdAt).toLocaleString()}</time></span>
          </li>
        ))}
      </ul>
    </section>
  );
}
