import { formatValue } from '../format.ts';
import type { Column } from './chartData.ts';

/**
 * The rows of a run as a table: the chart's data table (its text alternative) and the whole answer
 * of a report or a table widget. Each cell keeps the API's value in `data-value` (JSON).
 */
export function ResultTable({ id, caption, columns, items }: { id: string; caption: string; columns: Column[]; items: Array<Record<string, unknown>> }) {
  if (items.length === 0) return <p class="empty" id={id}>No row.</p>;
  return (
    <div class="table-wrap">
      <table id={id} class="result-table">
        <caption>{caption}</caption>
        <thead><tr>{columns.map((c) => <th key={c.key} scope="col" data-key={c.key}>{c.label}</th>)}</tr></thead>
        <tbody>
          {items.map((row, i) => (
            <tr key={i}>
              {columns.map((c) => {
                const value = row[c.key];
                return <td key={c.key} data-key={c.key} data-value={JSON.stringify(value ?? null)} class={typeof value === 'number' ? 'type-number' : undefined}>{typeof value === 'object' && value !== null ? JSON.stringify(value) : formatValue(value, undefined, c.key)}</td>;
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
