import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { href, location } from '../route.ts';

interface Environment {
  id: string;
  label: string;
  default: boolean;
  current: boolean;
  user: { id: string; email: string | null };
}

/**
 * The environments this browser is signed in to (`GET /auth/environments`: the current one and
 * each whose session the browser holds), each a link to its home; shown when there is more than one.
 * The default environment's addresses have no `/env/<id>` part.
 */
export function EnvironmentSwitcher() {
  const [items, setItems] = useState<Environment[]>([]);
  const menu = useRef<HTMLDetailsElement>(null);
  useEffect(() => {
    api<{ items: Environment[] }>('/auth/environments').then((answer) => setItems(answer.items), () => setItems([]));
  }, []);
  // The menu closes once the user went somewhere.
  const place = location.value;
  useEffect(() => {
    if (menu.current) menu.current.open = false;
  }, [place]);
  const current = items.find((e) => e.current);
  if (items.length < 2 || !current) return null;
  return (
    <details class="env-switch" ref={menu}>
      <summary aria-label={`Environment: ${current.label}. Switch environment`}>
        <span class="muted">Environment </span><strong id="current-environment">{current.label}</strong>
      </summary>
      <ul aria-label="Environments">
        {items.map((env) => (
          <li key={env.id} data-environment={env.id}>
            <a href={href('/', env.default ? null : env.id)} aria-current={env.current ? 'page' : undefined}>{env.label}</a>
            {env.user.email ? <span class="muted"> as {env.user.email}</span> : null}
          </li>
        ))}
      </ul>
    </details>
  );
}
