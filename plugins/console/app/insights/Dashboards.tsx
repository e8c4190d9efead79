import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { href } from '../route.ts';
import { useList } from '../useList.ts';
import type { Dashboard } from './insightsApi.ts';

/** The dashboards declared in the apps (`GET /dashboards`); each runs as the user who opens it. */
export function Dashboards() {
  const { items, error } = useList<Dashboard>('/dashboards');
  return (
    <section class="dashboards">
      <header class="screen-head"><h1>Dashboards</h1></header>
      <ErrorNotice error={error} />
      {items && items.length === 0 ? <p class="empty">No dashboard is declared: an app declares them as <code>dashboards/&lt;name&gt;.json</code>.</p> : null}
      {items && items.length > 0 ? (
        <ul class="tiles" id="dashboards">
          {items.map((d) => (
            <li key={d.name}>
              <a class="tile" href={href(`/dashboards/${encodeURIComponent(d.name)}`)}>{d.label}</a>
              <p class="muted">{d.description ?? `${d.widgets.length} widget${d.widgets.length === 1 ? '' : 's'}`}</p>
            </li>
          ))}
        </ul>
      ) : null}
      {items === null && !error ? <p aria-busy="true">Loading…</p> : null}
    </section>
  );
}
