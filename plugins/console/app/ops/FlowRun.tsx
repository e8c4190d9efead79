import { useState } from 'preact/hooks';
import type { FlowRun as Run } from '../../../../metadata/flowTypes.ts';
import { api } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { href } from '../route.ts';
import { useSubmit } from '../useSubmit.ts';
import { formatJson, formatTime } from './opsFormat.ts';
import { useAnswer } from './useAnswer.ts';
import { Scroll } from './Scroll.tsx';

const going = (run: Run) => run.status === 'running' || run.status === 'waiting';

/**
 * A flow run (`GET /flows/:flow/runs/:runId`): its steps with their outputs and errors, read again
 * every second while it goes on; **Cancel** (`POST .../cancel`) stops a waiting run at once and a
 * running one at its next step boundary.
 */
export function FlowRun({ flow, runId }: { flow: string; runId: string }) {
  const path = `/flows/${encodeURIComponent(flow)}/runs/${encodeURIComponent(runId)}`;
  const run = useAnswer<Run>(path, undefined, { everyMs: 1000, while: going });
  const [asked, setAsked] = useState(false);
  const cancel = useSubmit(async () => {
    await api<Run>(`${path}/cancel`, { method: 'POST', body: {} });
    setAsked(true);
    run.reload();
  });
  const r = run.data;
  return (
    <section class="ops">
      <header class="screen-head">
        <p class="crumbs"><a href={href('/ops/flows')}>Flow runs</a></p>
        <h1>Run of {flow}</h1>
        {r && going(r) ? <div class="actions"><button type="button" class="danger" id="cancel-run" disabled={cancel.busy || asked} onClick={() => void cancel.run()}>Cancel run</button></div> : null}
      </header>
      <ErrorNotice error={run.error ?? cancel.error} />
      {asked && r && going(r) ? <p class="notice warning" role="status">Cancel asked: the run stops at its next step boundary (the step in progress finishes and is recorded).</p> : null}
      {r ? (
        <>
          <dl class="facts">
            <dt>Status</dt><dd><span class={`state state-${r.status}`} id="run-status">{r.status}</span></dd>
            <dt>Run</dt><dd><code>{r.id}</code></dd>
            <dt>Trigger</dt><dd>{r.trigger}</dd>
            <dt>Runs as</dt><dd>{r.runAs === 'system' ? 'the system' : `its starter${r.startedBy ? ` (${r.startedBy})` : ''}`}</dd>
            <dt>Started</dt><dd>{formatTime(r.startedAt)}</dd>
            <dt>Ended</dt><dd>{r.endedAt ? formatTime(r.endedAt) : '—'}</dd>
          </dl>
          {r.error ? <div class="notice error"><strong>{r.error.message}</strong> <span class="code">({r.error.code})</span></div> : null}
          <h2 id="steps-title">Steps</h2>
          {r.steps.length === 0 ? <p class="empty">No step has run yet.</p> : (
            <Scroll label="Steps">
              <table aria-labelledby="steps-title" id="run-steps">
                <thead><tr><th scope="col">Step</th><th scope="col">Status</th><th scope="col">Output</th><th scope="col">Error</th></tr></thead>
                <tbody>
                  {r.steps.map((s) => (
                    <tr key={s.id} data-step={s.id} data-status={s.status}>
                      <td>{s.id}</td>
                      <td><span class={`state state-${s.status}`}>{s.status}</span></td>
                      <td class="wrap"><pre>{formatJson(s.output, 1000)}</pre></td>
                      <td class="wrap">{s.error ? `${s.error.message} (${s.error.code})` : ''}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Scroll>
          )}
          <h2>Input</h2>
          <pre class="json">{formatJson(r.input) || '{}'}</pre>
        </>
      ) : null}
    </section>
  );
}
