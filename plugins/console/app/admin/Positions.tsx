import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { noticeAuthError } from '../session.ts';
import { useSubmit } from '../useSubmit.ts';
import { rowsOf } from './adminApi.ts';

interface Position { id: string; name: string; label: string | null; parent: string | null; delegatable: boolean; admin_scope: boolean }
interface SetRow { id: string; name: string }
interface Link { id: string; position: string; permission_set: string }

/**
 * The positions of the hierarchy and the permission sets each carries (its holders get them): add a
 * position, link or unlink a set. Who holds a position is on the Assignments screen.
 */
export function Positions() {
  const [data, setData] = useState<{ positions: Position[]; sets: SetRow[]; links: Link[] } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    Promise.all([rowsOf<Position>('sys_position', { orderBy: 'name' }), rowsOf<SetRow>('sys_permission_set', { orderBy: 'name' }), rowsOf<Link>('sys_position_permission_set')])
      .then(([positions, sets, links]) => { if (live) { setData({ positions, sets, links }); setError(null); } }, (e) => { noticeAuthError(e); if (live) setError(e); });
    return () => { live = false; };
  }, [tick]);
  const again = () => setTick((n) => n + 1);

  const [name, setName] = useState('');
  const [label, setLabel] = useState('');
  const [parent, setParent] = useState('');
  const [delegatable, setDelegatable] = useState(false);
  const [adminScope, setAdminScope] = useState(false);
  const create = useSubmit(async () => {
    await api('/data/sys_position', { method: 'POST', body: { name: name.trim(), ...(label ? { label } : {}), ...(parent ? { parent } : {}), delegatable, admin_scope: adminScope } });
    setName('');
    setLabel('');
    again();
  });
  const [linking, setLinking] = useState<Record<string, string>>({});
  const link = useSubmit(async (position: string) => {
    const set = linking[position];
    if (!set) throw new Error('Choose a permission set to add.');
    await api('/data/sys_position_permission_set', { method: 'POST', body: { position, permission_set: set } });
    setLinking({ ...linking, [position]: '' });
    again();
  });
  const unlink = useSubmit(async (id: string) => {
    await api(`/data/sys_position_permission_set/${encodeURIComponent(id)}`, { method: 'DELETE' });
    again();
  });

  if (!data) return <section><h1>Positions</h1><ErrorNotice error={error} />{error ? null : <p aria-busy="true">Loading…</p>}</section>;
  const nameOf = (id: string | null) => data.positions.find((p) => p.id === id)?.name ?? '';
  const setNameOf = (id: string) => data.sets.find((s) => s.id === id)?.name ?? id;
  return (
    <section class="positions">
      <header class="screen-head"><h1>Positions</h1></header>
      <form class="panel-form" onSubmit={create.onSubmit} aria-labelledby="new-position-title">
        <h2 id="new-position-title">New position</h2>
        <ErrorNotice error={create.error} />
        <label for="position-name">Name</label>
        <input id="position-name" required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <label for="position-label">Label</label>
        <input id="position-label" maxLength={200} value={label} onInput={(e) => setLabel(e.currentTarget.value)} />
        <label for="position-parent">Reports to</label>
        <select id="position-parent" value={parent} onChange={(e) => setParent(e.currentTarget.value)}>
          <option value="">nobody (top of the hierarchy)</option>
          {data.positions.map((p) => <option key={p.id} value={p.id}>{p.name}</option>)}
        </select>
        <label class="check"><input type="checkbox" checked={delegatable} onChange={(e) => setDelegatable(e.currentTarget.checked)} /> Its holders may delegate it (30 days at most, with a reason)</label>
        <label class="check"><input type="checkbox" checked={adminScope} onChange={(e) => setAdminScope(e.currentTarget.checked)} /> Admin scope: its holders administer the permission model (never delegated)</label>
        <button type="submit" class="primary" id="create-position" disabled={create.busy}>Create position</button>
      </form>
      <ErrorNotice error={error ?? link.error ?? unlink.error} />
      {data.positions.length === 0 ? <p class="empty">No position yet.</p> : (
        <div class="table-wrap">
          <table id="positions">
            <thead><tr><th scope="col">Name</th><th scope="col">Reports to</th><th scope="col">Delegatable</th><th scope="col">Admin scope</th><th scope="col">Permission sets</th></tr></thead>
            <tbody>
              {data.positions.map((p) => (
                <tr key={p.id} data-id={p.id}>
                  <th scope="row">{p.label ? `${p.label} (${p.name})` : p.name}</th>
                  <td>{nameOf(p.parent)}</td>
                  <td>{p.delegatable ? 'Yes' : 'No'}</td>
                  <td>{p.admin_scope ? 'Yes' : 'No'}</td>
                  <td>
                    <ul class="links">
                      {data.links.filter((l) => l.position === p.id).map((l) => (
                        <li key={l.id}>{setNameOf(l.permission_set)} <button type="button" class="link" aria-label={`Remove ${setNameOf(l.permission_set)} from ${p.name}`} onClick={() => void unlink.run(l.id)}>remove</button></li>
                      ))}
                    </ul>
                    <span class="inline-form">
                      <label for={`link-${p.id}`} class="visually-hidden">Permission set to add to {p.name}</label>
                      <select id={`link-${p.id}`} value={linking[p.id] ?? ''} onChange={(e) => setLinking({ ...linking, [p.id]: e.currentTarget.value })}>
                        <option value="">Add a permission set…</option>
                        {data.sets.map((s) => <option key={s.id} value={s.id}>{s.name}</option>)}
                      </select>
                      <button type="button" disabled={link.busy} aria-label={`Add to ${p.name}`} onClick={() => void link.run(p.id)}>Add</button>
                    </span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
