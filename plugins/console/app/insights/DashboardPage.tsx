import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { href } from '../route.ts';
import { useSubmit } from '../useSubmit.ts';
import { numberOf } from './chartData.ts';
import type { WidgetAnswer } from './insightsApi.ts';
import { RunView } from './RunView.tsx';

const NUMBER = new Intl.NumberFormat();

function Widget({ widget }: { widget: WidgetAnswer }) {
  const id = `widget-${widget.id}`;
  let body;
  if (widget.error) body = <p class="notice warning">{widget.error.message} <span class="code">({widget.error.code})</span></p>;
  else if (widget.type === 'metric') {
    const column = widget.columns?.[0];
    const value = column ? widget.items?.[0]?.[column.key] : undefined;
    body = <p class="metric" data-value={JSON.stringify(value ?? null)}>{numberOf(value) !== null ? NUMBER.format(numberOf(value)!) : '—'} <span class="muted">{column?.label}</span></p>;
  } else if (widget.type === 'chart') {
    body = <RunView id={id} title={widget.title} columns={widget.columns ?? []} items={widget.items ?? []} truncated={widget.truncated} kind={widget.chart ?? 'bar'} choose={false} />;
  } else {
    body = <RunView id={id} title={widget.title} columns={widget.columns ?? []} items={widget.items ?? []} truncated={widget.truncated} choose={false} grouped={[]} />;
  }
  return (
    <article class={`widget widget-${widget.type}`} data-widget={widget.id} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{widget.title}</h2>
      {body}
    </article>
  );
}

/** A dashboard run as the user (`POST /dashboards/:name/run`): each widget a number, a chart with its data table, or a table. */
export function DashboardPage({ name }: { name: string }) {
  const [answer, setAnswer] = useState<{ label: string; widgets: WidgetAnswer[] } | null>(null);
  const run = useSubmit(async () => {
    setAnswer(await api(`/dashboards/${encodeURIComponent(name)}/run`, { method: 'POST' }));
  });
  useEffect(() => { setAnswer(null); void run.run(); }, [name]);
  return (
    <section class="dashboard">
      <header class="screen-head">
        <p class="crumbs"><a href={href('/dashboards')}>Dashboards</a></p>
        <h1>{answer?.label ?? name}</h1>
        <div class="actions"><button type="button" id="refresh-dashboard" disabled={run.busy} onClick={() => void run.run()}>Refresh</button></div>
      </header>
      <ErrorNotice error={run.error} />
      {answer ? <div class="widgets">{answer.widgets.map((w) => <Widget key={w.id} widget={w} />)}</div> : run.busy ? <p aria-busy="true">Loading…</p> : null}
    </section>
  );
}
