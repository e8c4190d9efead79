import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import type { ProcessDoc, RecordApprovalState, RecordLock, RequestDetail } from '../approvals.ts';
import { href } from '../route.ts';
import { noticeAuthError } from '../session.ts';
import { useSubmit } from '../useSubmit.ts';
import { ApprovalRequestView } from './ApprovalRequestView.tsx';
import { ErrorNotice } from './ErrorNotice.tsx';

const OPEN = new Set(['pending', 'sent_back']);

/**
 * A record's approvals (`GET /approvals/records/:object/:id`): the lock while a request is pending,
 * submitting to the object's processes, and the newest request the user may see with its progress,
 * history and actions. Tells the page the lock (`onLock`); `tick` reads it all again.
 */
export function RecordApprovals({ object, id, tick, onLock }: { object: string; id: string; tick: number; onLock: (lock: RecordLock | null) => void }) {
  const [state, setState] = useState<RecordApprovalState | null>(null);
  const [processes, setProcesses] = useState<ProcessDoc[]>([]);
  const [latest, setLatest] = useState<RequestDetail | null>(null);
  const [chosen, setChosen] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [absent, setAbsent] = useState(false);
  const [reads, setReads] = useState(0);

  useEffect(() => {
    let live = true;
    void (async () => {
      try {
        const [answer, catalog] = await Promise.all([
          api<RecordApprovalState>(`/approvals/records/${encodeURIComponent(object)}/${encodeURIComponent(id)}`),
          api<{ items: ProcessDoc[] }>('/approvals/processes'),
        ]);
        const newest = answer.requests[0];
        const detail = newest ? await api<RequestDetail>(`/approvals/requests/${encodeURIComponent(newest.id)}`) : null;
        if (!live) return;
        const own = catalog.items.filter((p) => p.object === object);
        setState(answer);
        setProcesses(own);
        setChosen((c) => (own.some((p) => p.name === c) ? c : own[0]?.name ?? ''));
        setLatest(detail);
        setError(null);
        onLock(answer.lock);
      } catch (e) {
        if (!live) return;
        // No approvals plugin (or a record that is gone): the page shows no approval section.
        if (e instanceof ApiError && e.status === 404) { setAbsent(true); onLock(null); return; }
        noticeAuthError(e);
        setError(e);
      }
    })();
    return () => { live = false; };
  }, [object, id, tick, reads]);

  const submit = useSubmit(async () => {
    await api('/approvals/requests', { method: 'POST', body: { process: chosen, recordId: id } });
    setReads((n) => n + 1);
  });

  if (absent || (!error && !state)) return null;
  if (state && processes.length === 0 && state.requests.length === 0 && !state.lock) return null;
  const lock = state?.lock ?? null;
  const open = state?.requests.some((r) => OPEN.has(r.status)) ?? false;
  return (
    <section class="record-approvals" aria-labelledby="approvals-title">
      <h2 id="approvals-title">Approval</h2>
      <ErrorNotice error={error ?? submit.error} />
      {!open && !lock && processes.length > 0 ? (
        <form class="submit-approval" onSubmit={submit.onSubmit}>
          {processes.length > 1 ? (
            <>
              <label for="approval-process">Approval process</label>
              <select id="approval-process" value={chosen} onChange={(e) => setChosen(e.currentTarget.value)}>
                {processes.map((p) => <option key={p.name} value={p.name}>{p.label}</option>)}
              </select>
            </>
          ) : null}
          <button type="submit" id="submit-approval" class="primary" disabled={submit.busy || !chosen}>
            {processes.length > 1 ? 'Submit for approval' : `Submit for approval (${processes[0]!.label})`}
          </button>
        </form>
      ) : null}
      {latest ? (
        <div class="latest-request" data-id={latest.id}>
          <p><a href={href(`/approvals/${encodeURIComponent(latest.id)}`)}>{latest.processLabel}</a>, submitted <time dateTime={latest.submittedAt}>{new Date(latest.submittedAt).toLocaleString()}</time></p>
          <ApprovalRequestView request={latest} onChanged={() => setReads((n) => n + 1)} />
        </div>
      ) : null}
    </section>
  );
}
