import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { useAnswer } from './useAnswer.ts';
import { Scroll } from './Scroll.tsx';

interface PluginRow {
  name: string;
  version: string;
  source: string;
  state: 'enabled' | 'disabled' | 'problem';
  status: string;
  requires: string[];
  optional: string[];
  provides: string[];
  problems: string[];
}

/** The plugins of the server (`GET /plugins`), as `osr plugins` shows them: state, tokens, problems. */
export function Plugins() {
  const list = useAnswer<{ items: PluginRow[] }>('/plugins');
  const items = list.data?.items ?? null;
  const counts = (state: PluginRow['state']) => (items ?? []).filter((p) => p.state === state).length;
  return (
    <section class="ops">
      <header class="screen-head">
        <h1>Plugins</h1>
        <div class="actions"><button type="button" onClick={list.reload}>Refresh</button></div>
      </header>
      <ErrorNotice error={list.error} />
      {items ? <p id="plugin-counts">{counts('enabled')} enabled, {counts('disabled')} disabled, {counts('problem')} with a problem.</p> : null}
      {items && items.length > 0 ? (
        <Scroll label="Plugins">
          <table id="plugins">
            <caption class="visually-hidden">Plugins in configuration order</caption>
            <thead><tr><th scope="col">Plugin</th><th scope="col">State</th><th scope="col">Boot</th><th scope="col">Source</th><th scope="col">Provides</th><th scope="col">Requires</th></tr></thead>
            <tbody>
              {items.map((p) => (
                <tr key={p.name} data-name={p.name} data-state={p.state}>
                  <td><strong>{p.name}</strong> <span class="muted">{p.version}</span></td>
                  <td><span class={`state state-${p.state}`}>{p.state}</span>{p.problems.map((problem) => <div key={problem} class="field-error">{problem}</div>)}</td>
                  <td>{p.status}</td>
                  <td>{p.source}</td>
                  <td class="wrap">{p.provides.join(', ') || '—'}</td>
                  <td class="wrap">{p.requires.join(', ') || '—'}{p.optional.length > 0 ? <span class="muted"> (optional: {p.optional.join(', ')})</span> : null}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      ) : null}
    </section>
  );
}
