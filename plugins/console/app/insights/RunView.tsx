import { useMemo, useState } from 'preact/hooks';
import { Chart, type ChartKind } from './Chart.tsx';
import { chartData, type Column } from './chartData.ts';
import { ResultTable } from './ResultTable.tsx';

/**
 * The answer of a run: a chart when it has a measure to draw (with the kind to draw it as), the
 * rows as a table (the chart's data table), and a note when more rows matched than were answered.
 */
export function RunView({ id, title, columns, items, truncated, grouped, kind: initial = 'bar', choose = true }: {
  id: string; title: string; columns: Column[]; items: Array<Record<string, unknown>>; truncated?: boolean; grouped?: string[]; kind?: ChartKind; choose?: boolean;
}) {
  const [kind, setKind] = useState<ChartKind>(initial);
  const data = useMemo(() => chartData(columns, items, grouped), [columns, items, grouped]);
  return (
    <div class="run-view" id={id}>
      {data && choose ? (
        <div class="inline-form">
          <label for={`${id}-kind`}>Draw as</label>
          <select id={`${id}-kind`} value={kind} onChange={(e) => setKind(e.currentTarget.value as ChartKind)}>
            <option value="bar">bars</option>
            <option value="line">a line</option>
            <option value="pie">a pie</option>
          </select>
        </div>
      ) : null}
      {data ? <Chart kind={kind} title={title} data={data} /> : null}
      <ResultTable id={`${id}-data`} caption={data ? `${title}: the chart's data` : title} columns={columns} items={items} />
      {truncated ? <p class="notice warning">More rows match than the report answers (its limit, or the object's page size).</p> : null}
    </div>
  );
}
