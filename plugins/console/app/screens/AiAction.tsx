import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import { ACTION_STATUS, describeAction, diffRows, type PendingAction } from '../aiActions.ts';
import { objectView, type ViewDetail } from '../catalog.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { formatValue } from '../format.ts';
import { person } from '../inbox.ts';
import { useRecordNames } from '../recordNames.ts';
import { href } from '../route.ts';
import { noticeAuthError, session } from '../session.ts';
import { useSubmit } from '../useSubmit.ts';

const shown = (value: unknown, detail: ViewDetail | null, field: string) => (value === undefined ? '' : formatValue(value, detail?.fields[field], field) || '(empty)');

/**
 * One pending action (`GET /ai/pending-actions/:id`): the record as the model saw it against what
 * it proposes, who proposed it and from which conversation; approve or reject for those who may.
 */
export function AiAction({ id }: { id: string }) {
  const [action, setAction] = useState<PendingAction | null>(null);
  const [detail, setDetail] = useState<ViewDetail | null>(null);
  const [conversation, setConversation] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const me = session.value.status === 'signedIn' ? session.value.user.id : '';
  const target = action?.object ? action.recordId ?? (typeof action.result?.recordId === 'string' ? action.result.recordId : null) : null;
  const names = useRecordNames(action?.object && target && action.status !== 'rejected' ? [{ object: action.object, id: target }] : []);
  useEffect(() => {
    let live = true;
    void (async () => {
      try {
        const found = await api<PendingAction>(`/ai/pending-actions/${encodeURIComponent(id)}`);
        // Its object's labels and, for the proposer, her conversation's title (others see its id)
        // are read before anything is shown: the screen does not change once shown.
        const [view, talk] = await Promise.all([
          found.object ? objectView(found.object).catch(() => null) : null,
          found.proposedBy === me ? api<{ title: string | null }>(`/ai/conversations/${encodeURIComponent(found.conversationId)}`).catch(() => null) : null,
        ]);
        if (!live) return;
        setDetail(view);
        setConversation(talk?.title ?? null);
        setAction(found);
      } catch (e) {
        noticeAuthError(e);
        if (live) setError(e);
      }
    })();
    return () => { live = false; };
  }, [id]);
  const decide = useSubmit(async (verb: 'approve' | 'reject') => {
    try {
      setAction(await api<PendingAction>(`/ai/pending-actions/${encodeURIComponent(id)}/${verb}`, { method: 'POST', body: {} }));
    } catch (e) {
      // A failed apply leaves the action decided: show it as it is now.
      setAction(await api<PendingAction>(`/ai/pending-actions/${encodeURIComponent(id)}`).catch(() => action));
      throw e;
    }
  });

  if (error instanceof ApiError && error.status === 404) {
    return <section class="not-found"><h1>Not found</h1><p>There is no such action, or you may not see it.</p><p><a href={href('/ai-actions')}>Back to AI actions</a></p></section>;
  }
  if (!action) return <section><ErrorNotice error={error} />{error ? null : <p aria-busy="true">Loading…</p>}</section>;
  const label = detail?.objectLabel ?? action.object ?? '';
  const rows = diffRows(action, detail?.fields ?? {});
  const recordId = action.recordId ?? (typeof action.result?.recordId === 'string' ? action.result.recordId : null);
  const recordLink = action.object && recordId && !(action.kind === 'delete' && action.status === 'applied') ? href(`/records/${encodeURIComponent(action.object)}/${encodeURIComponent(recordId)}`) : null;
  return (
    <section class="ai-action" data-status={action.status}>
      <header class="screen-head">
        <p class="crumbs"><a href={href('/ai-actions')}>AI actions</a></p>
        <h1>{describeAction(action, label)}</h1>
      </header>
      <dl class="facts">
        <dt>Status</dt><dd><span class={`status status-${action.status}`} id="ai-status-text">{ACTION_STATUS[action.status] ?? action.status}</span></dd>
        <dt>Proposed by</dt><dd id="ai-proposed-by">{person(action.proposedBy, action.people)}</dd>
        <dt>Conversation</dt><dd id="ai-conversation">{conversation ? <a href={href(`/chat/${encodeURIComponent(action.conversationId)}`)}>{`${conversation} (${action.conversationId})`}</a> : action.conversationId}</dd>
        <dt>Proposed</dt><dd><time dateTime={action.createdAt}>{new Date(action.createdAt).toLocaleString()}</time></dd>
        {action.status === 'pending' ? <><dt>Expires</dt><dd><time dateTime={action.expiresAt}>{new Date(action.expiresAt).toLocaleString()}</time></dd></> : null}
        {action.decidedBy ? <><dt>Decided by</dt><dd>{person(action.decidedBy, action.people)}</dd></> : null}
        {action.expectedVersion !== null ? <><dt>Version seen</dt><dd>{action.expectedVersion}</dd></> : null}
        {recordLink ? <><dt>Record</dt><dd><a id="ai-record" href={recordLink}>{names.get(`${action.object}:${recordId}`) ?? recordId}</a></dd></> : null}
      </dl>
      {action.error?.message ? <div class="notice error" role="alert">{action.error.message} <span class="code">({action.error.code})</span></div> : null}
      <ErrorNotice error={decide.error} />

      {action.kind === 'action' ? (
        <>
          <h2>Input of {action.action}</h2>
          <pre class="action-input">{JSON.stringify(action.payload ?? {}, null, 2)}</pre>
        </>
      ) : null}
      {rows.length > 0 ? (
        <div class="table-wrap">
          <table class="diff" id="ai-diff">
            <caption>{action.kind === 'create' ? 'The record it proposes' : action.kind === 'delete' ? 'The record it would delete' : 'The record as the model saw it, and what it proposes'}</caption>
            <thead><tr><th scope="col">Field</th><th scope="col">As the model saw it</th><th scope="col">Proposed</th></tr></thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.field} data-field={r.field} class={r.changed ? 'changed' : undefined}>
                  <th scope="row">{detail?.fields[r.field]?.label ?? r.field}{r.changed ? <span class="visually-hidden"> (changed)</span> : null}</th>
                  <td class="before">{action.kind === 'create' ? '' : shown(r.before, detail, r.field)}</td>
                  <td class="after">{action.kind === 'delete' ? '(deleted)' : shown(r.after, detail, r.field)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}

      {action.canApprove || action.canReject ? (
        <div class="form-actions decide">
          {action.canApprove ? <button type="button" id="ai-approve" class="primary" disabled={decide.busy} onClick={() => void decide.run('approve')}>Approve</button> : null}
          {action.canReject ? <button type="button" id="ai-reject" class="danger" disabled={decide.busy} onClick={() => void decide.run('reject')}>Reject</button> : null}
        </div>
      ) : null}
      {action.status === 'pending' && !action.canApprove ? (
        <p class="notice" role="status" id="ai-waiting">
          {action.canReject ? 'You proposed this: another holder of ai:approve approves it.' : 'Waiting for a holder of ai:approve to decide. Nothing is written until then.'}
        </p>
      ) : null}
    </section>
  );
}
