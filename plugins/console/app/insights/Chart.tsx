import {
  ArcElement, BarController, BarElement, CategoryScale, Chart as ChartJs, Legend, LinearScale, LineController, LineElement,
  PieController, PointElement, Tooltip, type ChartConfiguration,
} from 'chart.js';
import { useEffect, useRef } from 'preact/hooks';
import { describe, type ChartData } from './chartData.ts';

// Only the parts drawn here are bundled (Chart.js is tree-shaken by what is registered).
ChartJs.register(BarController, BarElement, LineController, LineElement, PointElement, PieController, ArcElement, CategoryScale, LinearScale, Legend, Tooltip);

export type ChartKind = 'bar' | 'line' | 'pie';

/** The palette, from the page's colours (so dark mode follows the system), then fixed hues. */
function palette(): string[] {
  const css = getComputedStyle(document.documentElement);
  const accent = css.getPropertyValue('--accent').trim() || '#0b5cad';
  return [accent, '#d97706', '#15803d', '#9333ea', '#dc2626', '#0891b2', '#65a30d', '#db2777'];
}

function config(kind: ChartKind, data: ChartData): ChartConfiguration {
  const colours = palette();
  const css = getComputedStyle(document.documentElement);
  const text = css.getPropertyValue('--text').trim() || '#1b1f24';
  const line = css.getPropertyValue('--line').trim() || '#d0d7de';
  const pie = kind === 'pie';
  return {
    type: kind,
    data: {
      labels: data.labels,
      datasets: data.series.map((s, i) => ({
        label: s.label,
        data: s.values,
        backgroundColor: pie ? data.labels.map((_, j) => colours[j % colours.length]!) : colours[i % colours.length]!,
        borderColor: pie ? css.getPropertyValue('--panel').trim() || '#fff' : colours[i % colours.length]!,
      })),
    },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      color: text,
      plugins: { legend: { display: pie || data.series.length > 1, labels: { color: text } } },
      ...(pie ? {} : {
        scales: {
          x: { ticks: { color: text }, grid: { color: line } },
          y: { beginAtZero: true, ticks: { color: text }, grid: { color: line } },
        },
      }),
    },
  } as ChartConfiguration;
}

/**
 * A chart drawn by Chart.js on a canvas, named for assistive technology by its text alternative
 * (every label with its numbers); the data table beside it (ChartTable) is the same numbers to
 * read. `data-chart` holds exactly what was handed to Chart.js.
 */
export function Chart({ kind, title, data }: { kind: ChartKind; title: string; data: ChartData }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    if (!canvas.current) return undefined;
    const chart = new ChartJs(canvas.current, config(kind, data));
    return () => chart.destroy();
  }, [kind, data]);
  const drawn = JSON.stringify({ labels: data.labels, series: data.series.map((s) => ({ key: s.key, values: s.values })) });
  return (
    <figure class="chart" data-kind={kind} data-chart={drawn}>
      <div class="chart-box">
        <canvas ref={canvas} role="img" aria-label={describe(kind, title, data)}>
          {describe(kind, title, data)}
        </canvas>
      </div>
      <figcaption>{title}</figcaption>
    </figure>
  );
}
