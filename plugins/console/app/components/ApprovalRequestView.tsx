import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { currentStep, DECISION_LABELS, hasVoted, STATUS_LABELS, type RequestDetail } from '../approvals.ts';
import { person } from '../inbox.ts';
import { session } from '../session.ts';
import { useSubmit } from '../useSubmit.ts';
import { ErrorNotice } from './ErrorNotice.tsx';

const when = (iso: string) => new Date(iso).toLocaleString();

/**
 * One approval request: its progress, its steps, what the signed-in user may do on it now (an
 * approver of the current step: approve, reject, send back, reassign; the submitter: resubmit a
 * sent-back request, recall an open one), each with a comment, and its history.
 */
export function ApprovalRequestView({ request, onChanged }: { request: RequestDetail; onChanged: (next: RequestDetail) => void }) {
  const me = session.value.status === 'signedIn' ? session.value.user.id : '';
  const [comment, setComment] = useState('');
  const [to, setTo] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const act = useSubmit(async (action: string) => {
    setDone(null);
    const body: Record<string, unknown> = {};
    if (comment.trim()) body.comment = comment.trim();
    if (action === 'reassign') body.to = to.trim();
    const next = await api<RequestDetail>(`/approvals/requests/${encodeURIComponent(request.id)}/${action}`, { method: 'POST', body });
    setComment('');
    setTo('');
    setDone(`${DECISION_LABELS[action] ?? action}.`);
    onChanged(next);
  });
  const step = currentStep(request);
  const pending = request.status === 'pending';
  const deciding = pending && (step?.approvers ?? []).includes(me) && !hasVoted(request, me);
  const submitter = request.submittedBy === me;
  const resubmit = submitter && request.status === 'sent_back';
  const recall = submitter && (pending || request.status === 'sent_back');
  const stepLabel = (index: number) => request.steps[index]?.label ?? String(index + 1);

  return (
    <div class="approval-request" data-status={request.status}>
      <p class="approval-progress">
        <span class={`status status-${request.status}`}>{STATUS_LABELS[request.status] ?? request.status}</span>{' '}
        <span id={`progress-${request.id}`}>{request.progress}</span>
      </p>
      <ol class="approval-steps" aria-label="Steps">
        {request.steps.map((s) => (
          <li key={s.name} data-step={s.name} data-status={s.status}>
            <strong>{s.label}</strong> <span class="muted">{STATUS_LABELS[s.status] ?? s.status}</span>
            {s.approvers ? (
              <span class="muted">
                {' '}· {s.approvals ?? 0} of {s.required ?? 1} approvals · approvers: {s.approvers.map((u) => person(u, request.people)).join(', ')}
                {s.waitingFor && s.waitingFor.length > 0 ? ` · waiting for ${s.waitingFor.map((u) => person(u, request.people)).join(', ')}` : ''}
              </span>
            ) : null}
          </li>
        ))}
      </ol>

      {deciding || resubmit || recall ? (
        <form class="approval-actions" onSubmit={(e) => e.preventDefault()}>
          <ErrorNotice error={act.error} />
          <label for={`approval-comment-${request.id}`}>Comment</label>
          <textarea id={`approval-comment-${request.id}`} class="approval-comment" rows={3} maxLength={4000} value={comment} onInput={(e) => setComment(e.currentTarget.value)} />
          <div class="form-actions">
            {deciding ? <button type="button" class="primary" data-action="approve" disabled={act.busy} onClick={() => void act.run('approve')}>Approve</button> : null}
            {deciding ? <button type="button" class="danger" data-action="reject" disabled={act.busy} onClick={() => void act.run('reject')}>Reject</button> : null}
            {deciding ? <button type="button" data-action="send-back" disabled={act.busy} onClick={() => void act.run('send-back')}>Send back</button> : null}
            {resubmit ? <button type="button" class="primary" data-action="resubmit" disabled={act.busy} onClick={() => void act.run('resubmit')}>Resubmit</button> : null}
            {recall ? <button type="button" data-action="recall" disabled={act.busy} onClick={() => void act.run('recall')}>Recall</button> : null}
          </div>
          {deciding ? (
            <div class="reassign">
              <label for={`approval-to-${request.id}`}>Reassign my place to (user id)</label>
              <input id={`approval-to-${request.id}`} class="approval-to" value={to} onInput={(e) => setTo(e.currentTarget.value)} />
              <button type="button" data-action="reassign" disabled={act.busy || !to.trim()} onClick={() => void act.run('reassign')}>Reassign</button>
            </div>
          ) : null}
        </form>
      ) : null}
      {done ? <p class="notice success" role="status">{done}</p> : null}

      <h3>History</h3>
      <ol class="approval-history">
        {request.decisions.map((d) => (
          <li key={d.id} data-kind={d.kind}>
            <span class="decision-kind">{DECISION_LABELS[d.kind] ?? d.kind}</span> by {person(d.userId, request.people)} on step {stepLabel(d.step)}
            {d.kind === 'reassign' && d.detail ? ` (to ${person(String(d.detail.to), request.people)})` : ''}
            {' '}<time dateTime={d.at} class="muted">{when(d.at)}</time>
            {d.comment ? <blockquote class="decision-comment">{d.comment}</blockquote> : null}
          </li>
        ))}
      </ol>
    </div>
  );
}
