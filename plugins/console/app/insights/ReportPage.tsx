import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { href } from '../route.ts';
import { currentUser, isAdmin } from '../session.ts';
import { useSubmit } from '../useSubmit.ts';
import { groupedKeys } from './chartData.ts';
import { sourceOf, type Report, type RunAnswer } from './insightsApi.ts';
import { RunView } from './RunView.tsx';
import { ScheduleForm } from './ScheduleForm.tsx';

/** One report: run as the user (`POST /reports/:id/run`), drawn as a chart with its data table, and its delivery. */
export function ReportPage({ id }: { id: string }) {
  const [report, setReport] = useState<Report | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [answer, setAnswer] = useState<RunAnswer | null>(null);
  const run = useSubmit(async () => {
    setAnswer(await api<RunAnswer>(`/reports/${encodeURIComponent(id)}/run`, { method: 'POST' }));
  });
  useEffect(() => {
    let live = true;
    setReport(null);
    setAnswer(null);
    api<Report>(`/reports/${encodeURIComponent(id)}`).then((r) => { if (live) { setReport(r); setError(null); void run.run(); } }, (e) => { if (live) setError(e); });
    return () => { live = false; };
  }, [id]);
  if (!report) return <section><p class="crumbs"><a href={href('/reports')}>Reports</a></p><ErrorNotice error={error} />{error ? null : <p aria-busy="true">Loading…</p>}</section>;
  const user = currentUser();
  const mine = report.owner === user?.id;
  return (
    <section class="report">
      <header class="screen-head">
        <p class="crumbs"><a href={href('/reports')}>Reports</a></p>
        <h1>{report.name}</h1>
        <div class="actions"><button type="button" id="run-report" disabled={run.busy} onClick={() => void run.run()}>{run.busy ? 'Running…' : 'Run again'}</button></div>
      </header>
      {report.description ? <p>{report.description}</p> : null}
      <p class="muted">Reads {sourceOf(report.query)}; {report.shared ? 'shared with every user' : 'private'}; run as you.</p>
      <ErrorNotice error={run.error} />
      {answer ? <RunView id="report-run" title={report.name} columns={answer.columns} items={answer.items} truncated={answer.truncated} grouped={groupedKeys(report.query)} /> : run.busy ? <p aria-busy="true">Running…</p> : null}
      {mine || isAdmin(user) ? <ScheduleForm report={report} owner={mine} onChange={setReport} /> : null}
    </section>
  );
}
