import { useRef, useState } from 'preact/hooks';
import { api } from '../api.ts';

export interface PickedUser { id: string; name: string; email: string }

/** Users whose name or email holds the text (`GET /auth/admin/list-users`, admins only), at most 10. */
async function findUsers(text: string): Promise<PickedUser[]> {
  const byField = (searchField: 'name' | 'email') => api<{ users: Array<Record<string, unknown>> }>('/auth/admin/list-users', {
    query: { searchValue: text, searchField, searchOperator: 'contains', limit: 10 },
  });
  const answers = await Promise.all([byField('name'), byField('email')]);
  const out = new Map<string, PickedUser>();
  for (const answer of answers) for (const u of answer.users) out.set(String(u.id), { id: String(u.id), name: String(u.name ?? u.email ?? u.id), email: String(u.email ?? '') });
  return [...out.values()].slice(0, 10);
}

/** A user chosen by searching names and emails. */
export function UserPicker({ id, label, onPick }: { id: string; label: string; onPick: (user: PickedUser) => void }) {
  const [query, setQuery] = useState('');
  const [options, setOptions] = useState<PickedUser[] | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const timer = useRef<number | undefined>(undefined);
  /** The search whose answer is shown: an answer to an older text (or one come after a pick) is dropped. */
  const latest = useRef(0);
  const search = (text: string) => {
    setQuery(text);
    setOptions(null);
    window.clearTimeout(timer.current);
    const asked = ++latest.current;
    if (!text.trim()) return;
    timer.current = window.setTimeout(async () => {
      try {
        const found = await findUsers(text.trim());
        if (asked === latest.current) { setOptions(found); setFailed(null); }
      } catch (e) {
        if (asked === latest.current) { setOptions([]); setFailed((e as Error).message); }
      }
    }, 200);
  };
  return (
    <div class="lookup user-picker">
      <label for={id}>{label}</label>
      <input id={id} type="search" aria-controls={options !== null ? `${id}-options` : undefined} placeholder="Name or email…" value={query} onInput={(e) => search(e.currentTarget.value)} />
      {failed ? <p class="field-error" role="alert">{failed}</p> : null}
      {options !== null ? (
        <ul id={`${id}-options`} class="lookup-options" aria-label="Matching users" aria-live="polite">
          {options.length === 0 ? <li class="empty">No match</li> : options.map((u) => (
            <li key={u.id} data-user={u.id}>
              <button type="button" onClick={() => { latest.current++; onPick(u); setOptions(null); setQuery(''); }}>{u.name} <span class="muted">{u.email}</span></button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
