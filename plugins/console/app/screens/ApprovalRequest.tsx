import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import type { RequestDetail } from '../approvals.ts';
import { views } from '../catalog.ts';
import { ApprovalRequestView } from '../components/ApprovalRequestView.tsx';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { person } from '../inbox.ts';
import { useRecordNames } from '../recordNames.ts';
import { href } from '../route.ts';
import { noticeAuthError } from '../session.ts';

/** One approval request (`GET /approvals/requests/:id`): its record, progress, steps, history and the user's actions. */
export function ApprovalRequest({ id }: { id: string }) {
  const [request, setRequest] = useState<RequestDetail | null>(null);
  const [error, setError] = useState<unknown>(null);
  const names = useRecordNames(request ? [{ object: request.object, id: request.recordId }] : []);
  useEffect(() => {
    setRequest(null);
    setError(null);
    api<RequestDetail>(`/approvals/requests/${encodeURIComponent(id)}`).then(setRequest, (e) => { noticeAuthError(e); setError(e); });
  }, [id]);
  if (error instanceof ApiError && error.status === 404) {
    return <section class="not-found"><h1>Not found</h1><p>There is no such approval request, or you have no part in it.</p><p><a href={href('/approvals')}>Back to approvals</a></p></section>;
  }
  if (!request) return <section><ErrorNotice error={error} />{error ? null : <p aria-busy="true">Loading…</p>}</section>;
  const objectLabel = (views.value ?? []).find((v) => v.object === request.object)?.objectLabel ?? request.object;
  return (
    <section class="approval">
      <header class="screen-head">
        <p class="crumbs"><a href={href('/approvals')}>Approvals</a></p>
        <h1>{request.processLabel}</h1>
      </header>
      <p>
        {objectLabel} <a id="request-record" href={href(`/records/${encodeURIComponent(request.object)}/${encodeURIComponent(request.recordId)}`)}>{names.get(`${request.object}:${request.recordId}`) ?? request.recordId}</a>,
        submitted by {person(request.submittedBy, request.people)} on <time dateTime={request.submittedAt}>{new Date(request.submittedAt).toLocaleString()}</time>
        {request.revisions > 0 ? `, sent back ${request.revisions} of ${request.maxRevisions} times` : ''}.
      </p>
      <ApprovalRequestView request={request} onChanged={setRequest} />
    </section>
  );
}
