import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { noticeAuthError } from '../session.ts';
import { runHref } from './FlowRuns.tsx';
import { formatTime } from './opsFormat.ts';
import { Scroll } from './Scroll.tsx';

interface Delivery {
  flow: string;
  deliveryId: string | null;
  receivedAt: string;
  runId: string | null;
}

interface Page {
  items: Delivery[];
  nextCursor: string | null;
}

/** Inbound hook deliveries the environment accepted (`GET /automation/deliveries`), newest first, 50 at a time, each linked to its run. */
export function HookDeliveries() {
  const [flow, setFlow] = useState('');
  const [applied, setApplied] = useState('');
  const [items, setItems] = useState<Delivery[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [tick, setTick] = useState(0);
  const read = async (cursor: string | null, append: boolean) => {
    try {
      const page = await api<Page>('/automation/deliveries', { query: { flow: applied || undefined, limit: 50, cursor: cursor ?? undefined } });
      setItems((before) => (append ? [...(before ?? []), ...page.items] : page.items));
      setNext(page.nextCursor);
      setError(null);
    } catch (e) {
      noticeAuthError(e);
      setError(e);
    }
  };
  useEffect(() => { void read(null, false); }, [applied, tick]);
  return (
    <section class="ops">
      <header class="screen-head">
        <h1>Hook deliveries</h1>
        <div class="actions"><button type="button" onClick={() => setTick((n) => n + 1)}>Refresh</button></div>
      </header>
      <p>Signed calls of other systems that started an <code>api</code> flow (kept 14 days). A duplicate or a refused call started nothing and is not listed.</p>
      <form class="view-switch" onSubmit={(e) => { e.preventDefault(); setApplied(flow.trim()); }}>
        <label for="delivery-flow">Flow</label>
        <input id="delivery-flow" value={flow} placeholder="every flow" onInput={(e) => setFlow(e.currentTarget.value)} />
        <button type="submit">Filter</button>
      </form>
      <ErrorNotice error={error} />
      {items && items.length === 0 ? <p class="empty">No delivery{applied ? ` for ${applied}` : ''}.</p> : null}
      {items && items.length > 0 ? (
        <Scroll label="Hook deliveries">
          <table id="deliveries">
            <caption class="visually-hidden">Hook deliveries, newest first</caption>
            <thead><tr><th scope="col">Received</th><th scope="col">Flow</th><th scope="col">Delivery id</th><th scope="col">Run</th></tr></thead>
            <tbody>
              {items.map((d) => (
                <tr key={`${d.flow} ${d.receivedAt} ${d.runId ?? ''}`} data-run={d.runId ?? ''}>
                  <td>{formatTime(d.receivedAt)}</td>
                  <td>{d.flow}</td>
                  <td>{d.deliveryId ?? <span class="muted">none sent</span>}</td>
                  <td>{d.runId ? <a href={runHref(d.flow, d.runId)}>{d.runId}</a> : <span class="muted">starting</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      ) : null}
      {next ? <p class="pager"><button type="button" onClick={() => void read(next, true)}>More</button></p> : null}
    </section>
  );
}
