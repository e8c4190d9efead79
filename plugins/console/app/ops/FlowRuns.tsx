import { useState } from 'preact/hooks';
import type { FlowRunStatus } from '../../../../metadata/flowTypes.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { href } from '../route.ts';
import { formatTime } from './opsFormat.ts';
import { useAnswer } from './useAnswer.ts';
import { Scroll } from './Scroll.tsx';

const STATUSES: readonly FlowRunStatus[] = ['running', 'waiting', 'completed', 'failed', 'cancelled'];
const PAGE = 50;

interface RunRow {
  id: string;
  flow: string;
  status: FlowRunStatus;
  trigger: string;
  started_at: string;
  ended_at: string | null;
  cancel_requested: boolean | number | null;
}

/** The page address of a run. */
export function runHref(flow: string, runId: string): string {
  return href(`/ops/flows/${encodeURIComponent(flow)}/${encodeURIComponent(runId)}`);
}

/** Flow runs of the environment (`/data/sys_flow_run`, admins), newest first, by status; each opens its page. */
export function FlowRuns() {
  const [status, setStatus] = useState<FlowRunStatus | ''>('');
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const runs = useAnswer<{ items: RunRow[]; total?: number; nextCursor?: string | null }>('/data/sys_flow_run', {
    where: status ? JSON.stringify({ status: { $eq: status } }) : undefined,
    orderBy: '-started_at',
    limit: PAGE,
    cursor,
    count: 'estimated',
    select: 'id,flow,status,trigger,started_at,ended_at,cancel_requested',
  });
  const page = runs.data;
  return (
    <section class="ops">
      <header class="screen-head">
        <h1>Flow runs</h1>
        <div class="actions"><button type="button" onClick={runs.reload}>Refresh</button></div>
      </header>
      <p class="view-switch">
        <label for="run-status">Status</label>
        <select id="run-status" value={status} onChange={(e) => { setStatus(e.currentTarget.value as FlowRunStatus | ''); setCursors([undefined]); }}>
          <option value="">any</option>
          {STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
        </select>
      </p>
      <ErrorNotice error={runs.error} />
      <p class="total" aria-live="polite">{page?.total === undefined ? '' : `${page.total.toLocaleString()} run${page.total === 1 ? '' : 's'}`}</p>
      {page && page.items.length === 0 ? <p class="empty">No run{status ? ` ${status}` : ''}.</p> : null}
      {page && page.items.length > 0 ? (
        <Scroll label="Flow runs">
          <table id="flow-runs">
            <caption class="visually-hidden">Flow runs, newest first</caption>
            <thead><tr><th scope="col">Flow</th><th scope="col">Status</th><th scope="col">Trigger</th><th scope="col">Started</th><th scope="col">Ended</th><th scope="col">Run</th></tr></thead>
            <tbody>
              {page.items.map((run) => (
                <tr key={run.id} data-id={run.id} data-status={run.status}>
                  <td>{run.flow}</td>
                  <td><span class={`state state-${run.status}`}>{run.status}</span>{run.cancel_requested === true || run.cancel_requested === 1 ? ' (cancel asked)' : ''}</td>
                  <td>{run.trigger}</td>
                  <td>{formatTime(run.started_at)}</td>
                  <td>{formatTime(run.ended_at)}</td>
                  <td><a href={runHref(run.flow, run.id)}>{run.id}</a></td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      ) : null}
      {cursors.length > 1 || page?.nextCursor ? (
        <nav class="pager" aria-label="Pages">
          <button type="button" disabled={cursors.length <= 1} onClick={() => setCursors(cursors.slice(0, -1))}>Previous</button>
          <span>Page {cursors.length}</span>
          <button type="button" disabled={!page?.nextCursor} onClick={() => page?.nextCursor && setCursors([...cursors, page.nextCursor])}>Next</button>
        </nav>
      ) : null}
    </section>
  );
}
