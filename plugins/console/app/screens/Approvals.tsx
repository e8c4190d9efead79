import { STATUS_LABELS, type RequestSummary } from '../approvals.ts';
import { views } from '../catalog.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { person } from '../inbox.ts';
import { useRecordNames } from '../recordNames.ts';
import { href } from '../route.ts';
import { useList } from '../useList.ts';

function RequestList({ items, id, empty }: { items: RequestSummary[] | null; id: string; empty: string }) {
  const objectLabel = (object: string) => (views.value ?? []).find((v) => v.object === object)?.objectLabel ?? object;
  const names = useRecordNames((items ?? []).map((r) => ({ object: r.object, id: r.recordId })));
  if (items && items.length === 0) return <p class="empty">{empty}</p>;
  return (
    <ul class="request-list" id={id}>
      {(items ?? []).map((r) => (
        <li key={r.id} data-id={r.id} data-record={r.recordId}>
          <a href={href(`/approvals/${encodeURIComponent(r.id)}`)}>{r.processLabel}</a>
          <span class={`status status-${r.status}`}>{STATUS_LABELS[r.status] ?? r.status}</span>
          <span class="progress">{r.progress}</span>
          <span class="muted">
            {objectLabel(r.object)} <a href={href(`/records/${encodeURIComponent(r.object)}/${encodeURIComponent(r.recordId)}`)}>{names.get(`${r.object}:${r.recordId}`) ?? r.recordId}</a>
            {' '}· submitted by {person(r.submittedBy, r.people)}, <time dateTime={r.submittedAt}>{new Date(r.submittedAt).toLocaleString()}</time>
          </span>
        </li>
      ))}
    </ul>
  );
}

/** The approvals inbox: the requests waiting for the user's decision, then those the user submitted. */
export function Approvals() {
  const assigned = useList<RequestSummary>('/approvals/requests', { box: 'assigned', limit: 100 });
  const mine = useList<RequestSummary>('/approvals/requests', { box: 'mine', limit: 50 });
  return (
    <section class="approvals">
      <header class="screen-head">
        <h1>Approvals</h1>
        <div class="actions"><button type="button" onClick={() => { assigned.reload(); mine.reload(); }}>Refresh</button></div>
      </header>
      <ErrorNotice error={assigned.error ?? mine.error} />
      <section aria-labelledby="assigned-title">
        <h2 id="assigned-title">Waiting for you</h2>
        <RequestList items={assigned.items} id="assigned-requests" empty="Nothing waits for your decision." />
      </section>
      <section aria-labelledby="mine-title">
        <h2 id="mine-title">Submitted by you</h2>
        <RequestList items={mine.items} id="my-requests" empty="You submitted nothing yet." />
      </section>
    </section>
  );
}
