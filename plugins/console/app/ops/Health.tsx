import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { formatUptime } from './opsFormat.ts';
import { useAnswer } from './useAnswer.ts';
import { Scroll } from './Scroll.tsx';

interface Health {
  status: string;
  version: string;
  uptimeSeconds: number;
  details?: { caches?: string; signals?: Array<{ path: string; live: boolean; lastHeardMs: number | null }> };
}

/** The server's health (`GET /health`): status, version, uptime, whether its caches are trusted and each signal path between processes. */
export function Health() {
  const health = useAnswer<Health>('/health', undefined, { everyMs: 5000, while: () => true });
  const h = health.data;
  const signals = h?.details?.signals ?? [];
  return (
    <section class="ops">
      <header class="screen-head">
        <h1>Health</h1>
        <div class="actions"><button type="button" onClick={health.reload}>Refresh</button></div>
      </header>
      <ErrorNotice error={health.error} />
      {h ? (
        <dl class="facts">
          <dt>Status</dt><dd><span class={`state state-${h.status === 'ok' ? 'completed' : 'failed'}`} id="health-status">{h.status}</span></dd>
          <dt>Version</dt><dd>{h.version}</dd>
          <dt>Up for</dt><dd>{formatUptime(h.uptimeSeconds)}</dd>
          <dt>Caches</dt><dd id="health-caches">{h.details?.caches ?? '—'}</dd>
        </dl>
      ) : null}
      <h2 id="signals-title">Signal paths between processes</h2>
      {h && signals.length === 0 ? <p class="empty">None: this process serves alone.</p> : null}
      {signals.length > 0 ? (
        <Scroll label="Signal paths">
          <table aria-labelledby="signals-title">
            <thead><tr><th scope="col">Path</th><th scope="col">Live</th><th scope="col" class="num">Last heard (ms ago)</th></tr></thead>
            <tbody>
              {signals.map((s) => <tr key={s.path}><td>{s.path}</td><td>{s.live ? 'yes' : 'no'}</td><td class="num">{s.lastHeardMs ?? '—'}</td></tr>)}
            </tbody>
          </table>
        </Scroll>
      ) : null}
    </section>
  );
}
