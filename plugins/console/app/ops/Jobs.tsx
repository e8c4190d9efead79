import { useEffect, useState } from 'preact/hooks';
import type { JobCount, JobInfo, JobState } from '../../../../capabilities/jobsQueue.ts';
import { api } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { useSubmit } from '../useSubmit.ts';
import { formatNumber, formatTime } from './opsFormat.ts';
import { useAnswer } from './useAnswer.ts';
import { Scroll } from './Scroll.tsx';

const STATES: readonly JobState[] = ['waiting', 'delayed', 'active', 'failed', 'dead', 'completed'];

interface JobsAnswer {
  backend: 'embedded' | 'bullmq';
  counts: JobCount[];
  dead: JobInfo[];
}

interface JobRow {
  id: string;
  name: string;
  state: JobState;
  attempts: number;
  max_attempts: number;
  run_at: string;
  finished_at: string | null;
  last_error: string | null;
}

/** A retried job, followed until it leaves the queue's hands (completed, failed again, dead again). */
function Retried({ id, onSettled }: { id: string; onSettled(): void }) {
  const job = useAnswer<JobInfo>(`/jobs/${encodeURIComponent(id)}`, undefined, {
    everyMs: 1000,
    while: (j) => j.state === 'waiting' || j.state === 'active' || j.state === 'delayed' || j.state === 'failed',
  });
  const state = job.data?.state;
  const settled = state === 'completed' || state === 'dead';
  useEffect(() => { if (settled) onSettled(); }, [settled]);
  return (
    <div class={`notice ${state === 'completed' ? 'success' : state === 'dead' ? 'error' : ''}`} role="status" id="retried" data-state={state ?? ''}>
      Job {job.data?.name ?? ''} <code>{id}</code> was queued again: {state ?? 'reading…'}
      {state === 'dead' && job.data?.lastError ? `: ${job.data.lastError}` : ''}
      <ErrorNotice error={job.error} />
    </div>
  );
}

/**
 * The job queue of the environment (`GET /jobs`): counts per name and state, the dead letters with
 * their last error (each retried with `POST /jobs/:id/retry`), and the jobs of a state
 * (`/data/sys_job`).
 */
export function Jobs() {
  const queue = useAnswer<JobsAnswer>('/jobs');
  const [state, setState] = useState<JobState>('failed');
  const ofState = useAnswer<{ items: JobRow[] }>('/data/sys_job', {
    where: JSON.stringify({ state: { $eq: state } }),
    orderBy: '-run_at',
    limit: 50,
    select: 'id,name,state,attempts,max_attempts,run_at,finished_at,last_error',
    count: 'none',
  });
  const [retried, setRetried] = useState<string | null>(null);
  const retry = useSubmit(async (id: string) => {
    await api(`/jobs/${encodeURIComponent(id)}/retry`, { method: 'POST', body: {} });
    setRetried(id);
    queue.reload();
  });
  const reload = () => { queue.reload(); ofState.reload(); };
  const names = [...new Set((queue.data?.counts ?? []).map((c) => c.name))].sort();
  const count = (name: string, s: JobState) => queue.data?.counts.find((c) => c.name === name && c.state === s)?.count ?? 0;
  return (
    <section class="ops">
      <header class="screen-head">
        <h1>Jobs</h1>
        <div class="actions"><button type="button" onClick={reload}>Refresh</button></div>
      </header>
      <ErrorNotice error={queue.error} />
      {queue.data ? <p class="muted">Backend: <strong id="jobs-backend">{queue.data.backend}</strong> ({queue.data.backend === 'embedded' ? "jobs in the environment's database" : 'jobs in Redis, through BullMQ'})</p> : null}

      <h2 id="counts-title">Jobs by name and state</h2>
      {queue.data && names.length === 0 ? <p class="empty">No jobs.</p> : null}
      {names.length > 0 ? (
        <Scroll label="Jobs by name and state">
          <table aria-labelledby="counts-title" id="job-counts">
            <thead><tr><th scope="col">Job</th>{STATES.map((s) => <th scope="col" key={s} class="num">{s}</th>)}</tr></thead>
            <tbody>
              {names.map((name) => (
                <tr key={name} data-name={name}>
                  <th scope="row">{name}</th>
                  {STATES.map((s) => <td key={s} class="num" data-state={s}>{formatNumber(count(name, s))}</td>)}
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      ) : null}

      <h2 id="dead-title">Dead letters</h2>
      {retried ? <Retried key={retried} id={retried} onSettled={reload} /> : null}
      <ErrorNotice error={retry.error} />
      {queue.data && queue.data.dead.length === 0 ? <p class="empty" id="no-dead">No dead job: every job ran or is still trying.</p> : null}
      {queue.data && queue.data.dead.length > 0 ? (
        <Scroll label="Dead letters">
          <table aria-labelledby="dead-title" id="dead-jobs">
            <thead><tr><th scope="col">Job</th><th scope="col">Id</th><th scope="col" class="num">Attempts</th><th scope="col">Died</th><th scope="col">Last error</th><th scope="col"><span class="visually-hidden">Retry</span></th></tr></thead>
            <tbody>
              {queue.data.dead.map((job) => (
                <tr key={job.id} data-id={job.id}>
                  <td>{job.name}</td>
                  <td><code>{job.id}</code></td>
                  <td class="num">{job.attempts} of {job.maxAttempts}</td>
                  <td>{formatTime(job.finishedAt)}</td>
                  <td class="wrap last-error">{job.lastError}</td>
                  <td><button type="button" disabled={retry.busy} onClick={() => void retry.run(job.id)}>Retry</button></td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      ) : null}

      <h2 id="state-title">Jobs of a state</h2>
      <p class="view-switch">
        <label for="job-state">State</label>
        <select id="job-state" value={state} onChange={(e) => setState(e.currentTarget.value as JobState)}>
          {STATES.map((s) => <option key={s} value={s}>{s}</option>)}
        </select>
      </p>
      <ErrorNotice error={ofState.error} />
      {ofState.data && ofState.data.items.length === 0 ? <p class="empty">No {state} job.</p> : null}
      {ofState.data && ofState.data.items.length > 0 ? (
        <Scroll label="Jobs of a state">
          <table aria-labelledby="state-title" id="state-jobs">
            <thead><tr><th scope="col">Job</th><th scope="col">Id</th><th scope="col" class="num">Attempts</th><th scope="col">Runs at</th><th scope="col">Finished</th><th scope="col">Last error</th></tr></thead>
            <tbody>
              {ofState.data.items.map((job) => (
                <tr key={job.id} data-id={job.id}>
                  <td>{job.name}</td>
                  <td><code>{job.id}</code></td>
                  <td class="num">{job.attempts} of {job.max_attempts}</td>
                  <td>{formatTime(job.run_at)}</td>
                  <td>{formatTime(job.finished_at)}</td>
                  <td class="wrap">{job.last_error}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      ) : null}
      <p class="muted">The 50 most recent by run time, from <code>sys_job</code>{queue.data?.backend === 'bullmq' ? " (BullMQ's mirror)" : ''}.</p>
    </section>
  );
}
