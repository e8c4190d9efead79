import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { formatNumber, formatTime } from './opsFormat.ts';
import { useAnswer } from './useAnswer.ts';
import { Scroll } from './Scroll.tsx';

interface Advice {
  slowQueryMs: number;
  items: Array<{ object: string; columns: string[]; sql: string; runs: number; totalMs: number; maxMs: number; lastAt: string; shapes: Array<{ equality: string[]; range: string[]; sort: string[] }> }>;
}

/** Index advice (`GET /metrics/index-advice`): the index that would serve each slow query shape since the server started, most time spent first. */
export function IndexAdvice() {
  const advice = useAnswer<Advice>('/metrics/index-advice');
  const a = advice.data;
  return (
    <section class="ops">
      <header class="screen-head">
        <h1>Index advice</h1>
        <div class="actions"><button type="button" onClick={advice.reload}>Refresh</button></div>
      </header>
      <ErrorNotice error={advice.error} />
      {a ? <p>Reads that took {a.slowQueryMs} ms or more since this server started, by the index that would serve them. Declare one in the object's <code>indexes</code> to keep it.</p> : null}
      {a && a.items.length === 0 ? <p class="empty">No read was that slow: nothing to advise.</p> : null}
      {a && a.items.length > 0 ? (
        <Scroll label="Advised indexes">
          <table id="index-advice">
            <caption class="visually-hidden">Advised indexes, most time spent first</caption>
            <thead><tr><th scope="col">Object</th><th scope="col">Columns</th><th scope="col" class="num">Reads</th><th scope="col" class="num">Total ms</th><th scope="col" class="num">Slowest ms</th><th scope="col">Last</th><th scope="col">Statement</th></tr></thead>
            <tbody>
              {a.items.map((i) => (
                <tr key={i.sql} data-object={i.object}>
                  <td>{i.object}</td>
                  <td>{i.columns.join(', ')}</td>
                  <td class="num">{formatNumber(i.runs)}</td>
                  <td class="num">{formatNumber(Math.round(i.totalMs))}</td>
                  <td class="num">{formatNumber(Math.round(i.maxMs))}</td>
                  <td>{formatTime(i.lastAt)}</td>
                  <td class="wrap"><code>{i.sql}</code></td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      ) : null}
    </section>
  );
}
