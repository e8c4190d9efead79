import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { href } from '../route.ts';
import { currentUser } from '../session.ts';
import { sourceOf, type Report } from './insightsApi.ts';

/** The reports the user may run: its own and the shared ones (admins: every report), by name, 50 a page. */
export function Reports() {
  const [pages, setPages] = useState<Report[][]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const load = async (cursor?: string) => {
    setLoading(true);
    try {
      const answer = await api<{ items: Report[]; nextCursor: string | null }>('/reports', { query: { limit: 50, cursor } });
      setPages((p) => (cursor ? [...p, answer.items] : [answer.items]));
      setNext(answer.nextCursor ?? null);
      setError(null);
    } catch (e) {
      setError(e);
    } finally {
      setLoading(false);
    }
  };
  useEffect(() => { void load(); }, []);
  const me = currentUser()?.id;
  const items = pages.flat();
  return (
    <section class="reports">
      <header class="screen-head"><h1>Reports</h1></header>
      <p>Each report runs as you: you see the rows and fields you may read, whoever saved it.</p>
      <ErrorNotice error={error} />
      {!loading && items.length === 0 && !error ? <p class="empty">No report yet: reports are saved through <code>POST /api/v1/reports</code>.</p> : null}
      {items.length > 0 ? (
        <div class="table-wrap">
          <table id="reports">
            <thead><tr><th scope="col">Name</th><th scope="col">Reads</th><th scope="col">Shared</th><th scope="col">Owner</th><th scope="col">Delivery</th></tr></thead>
            <tbody>
              {items.map((r) => (
                <tr key={r.id} data-id={r.id}>
                  <td><a href={href(`/reports/${encodeURIComponent(r.id)}`)}>{r.name}</a>{r.description ? <div class="muted">{r.description}</div> : null}</td>
                  <td>{sourceOf(r.query)}</td>
                  <td>{r.shared ? 'Shared' : 'Private'}</td>
                  <td>{r.owner === me ? 'You' : 'Someone else'}</td>
                  <td>{r.schedule ? `${r.schedule.cron} (${r.schedule.timezone})` : ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {loading ? <p aria-busy="true">Loading…</p> : null}
      {next && !loading ? <div class="pager"><button type="button" onClick={() => void load(next)}>More</button></div> : null}
    </section>
  );
}
