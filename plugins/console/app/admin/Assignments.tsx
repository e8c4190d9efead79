import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { href, navigate } from '../route.ts';
import { noticeAuthError } from '../session.ts';
import { useSubmit } from '../useSubmit.ts';
import { allUsers, instantOf, rowsOf, when, windowState, type AdminUser } from './adminApi.ts';

interface Named { id: string; name: string; label?: string | null }
interface Assignment { id: string; user_id: string; permission_set?: string; position?: string; valid_from: string | null; valid_until: string | null; delegated_by?: string | null; reason?: string | null }

interface Loaded {
  users: AdminUser[];
  sets: Named[];
  positions: Named[];
  userSets: Assignment[];
  userPositions: Assignment[];
}

const STATE_LABEL = { active: 'Active', ended: 'Ended', 'not started': 'Not started' } as const;

/**
 * Who holds which permission set and which position, each within its validity window (open bounds
 * are open; the server fails closed on a window it cannot read): add, filter by user, remove.
 */
export function Assignments({ user }: { user: string | null }) {
  const [data, setData] = useState<Loaded | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    const where = user ? { where: JSON.stringify({ user_id: user }) } : {};
    Promise.all([
      allUsers(),
      rowsOf<Named>('sys_permission_set', { orderBy: 'name' }),
      rowsOf<Named>('sys_position', { orderBy: 'name' }),
      rowsOf<Assignment>('sys_user_permission_set', { orderBy: '-created_at', ...where }),
      rowsOf<Assignment>('sys_user_position', { orderBy: '-created_at', ...where }),
    ]).then(([users, sets, positions, userSets, userPositions]) => { if (live) { setData({ users, sets, positions, userSets, userPositions }); setError(null); } }, (e) => { noticeAuthError(e); if (live) setError(e); });
    return () => { live = false; };
  }, [user, tick]);

  const [who, setWho] = useState(user ?? '');
  const [kind, setKind] = useState<'set' | 'position'>('set');
  const [target, setTarget] = useState('');
  const [from, setFrom] = useState('');
  const [until, setUntil] = useState('');
  const [reason, setReason] = useState('');
  const [added, setAdded] = useState('');
  useEffect(() => { if (user) setWho(user); }, [user]);

  const add = useSubmit(async () => {
    if (!who) throw new Error('Choose a user.');
    if (!target) throw new Error(kind === 'set' ? 'Choose a permission set.' : 'Choose a position.');
    const span = { valid_from: instantOf(from), valid_until: instantOf(until) };
    if (span.valid_from && span.valid_until && span.valid_from >= span.valid_until) throw new Error('The window ends before it starts.');
    if (kind === 'set') await api('/data/sys_user_permission_set', { method: 'POST', body: { user_id: who, permission_set: target, ...span } });
    else await api('/data/sys_user_position', { method: 'POST', body: { user_id: who, position: target, ...span, ...(reason ? { reason } : {}) } });
    const email = data?.users.find((u) => u.id === who)?.email ?? who;
    const what = (kind === 'set' ? data?.sets : data?.positions)?.find((x) => x.id === target)?.name ?? target;
    setAdded(`${email} holds ${what}${span.valid_from || span.valid_until ? ` from ${span.valid_from ? when(span.valid_from) : 'now'} until ${span.valid_until ? when(span.valid_until) : 'revoked'}` : ''}.`);
    setReason('');
    setTick((n) => n + 1);
  });
  const remove = useSubmit(async (object: string, id: string) => {
    await api(`/data/${object}/${encodeURIComponent(id)}`, { method: 'DELETE' });
    setAdded('');
    setTick((n) => n + 1);
  });

  if (!data) return <section><h1>Assignments</h1><ErrorNotice error={error} />{error ? null : <p aria-busy="true">Loading…</p>}</section>;
  const emailOf = (id: string) => data.users.find((u) => u.id === id)?.email ?? id;
  const nameOf = (list: Named[], id: string | undefined) => list.find((x) => x.id === id)?.name ?? id ?? '';
  const targets = kind === 'set' ? data.sets : data.positions;
  const table = (title: string, object: string, rows: Assignment[], list: Named[], column: 'permission_set' | 'position') => (
    <>
      <h2>{title}</h2>
      {rows.length === 0 ? <p class="empty">None.</p> : (
        <div class="table-wrap">
          <table id={object}>
            <thead><tr><th scope="col">User</th><th scope="col">{column === 'position' ? 'Position' : 'Permission set'}</th><th scope="col">From</th><th scope="col">Until</th><th scope="col">Now</th>{column === 'position' ? <th scope="col">Delegated by</th> : null}<th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.id} data-id={r.id}>
                  <td><a href={href(`/admin/users/${encodeURIComponent(r.user_id)}`)}>{emailOf(r.user_id)}</a></td>
                  <td>{nameOf(list, r[column])}</td>
                  <td>{r.valid_from ? when(r.valid_from) : 'open'}</td>
                  <td>{r.valid_until ? when(r.valid_until) : 'open'}</td>
                  <td>{STATE_LABEL[windowState(r.valid_from, r.valid_until)]}</td>
                  {column === 'position' ? <td>{r.delegated_by ? `${emailOf(r.delegated_by)}${r.reason ? ` (${r.reason})` : ''}` : ''}</td> : null}
                  <td><button type="button" disabled={remove.busy} aria-label={`Remove ${nameOf(list, r[column])} from ${emailOf(r.user_id)}`} onClick={() => void remove.run(object, r.id)}>Remove</button></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
  return (
    <section class="assignments">
      <header class="screen-head"><h1>Assignments</h1></header>
      <form class="panel-form" onSubmit={add.onSubmit} aria-labelledby="assign-title">
        <h2 id="assign-title">Assign</h2>
        <ErrorNotice error={add.error} />
        <label for="assign-user">User</label>
        <select id="assign-user" value={who} onChange={(e) => setWho(e.currentTarget.value)}>
          <option value="">Choose a user</option>
          {data.users.map((u) => <option key={u.id} value={u.id}>{u.email}</option>)}
        </select>
        <label for="assign-kind">Assign a</label>
        <select id="assign-kind" value={kind} onChange={(e) => { setKind(e.currentTarget.value as 'set' | 'position'); setTarget(''); }}>
          <option value="set">permission set</option>
          <option value="position">position</option>
        </select>
        <label for="assign-target">{kind === 'set' ? 'Permission set' : 'Position'}</label>
        <select id="assign-target" value={target} onChange={(e) => setTarget(e.currentTarget.value)}>
          <option value="">Choose one</option>
          {targets.map((x) => <option key={x.id} value={x.id}>{x.label ? `${x.label} (${x.name})` : x.name}</option>)}
        </select>
        <label for="assign-from">Valid from (empty: now)</label>
        <input id="assign-from" type="datetime-local" value={from} onInput={(e) => setFrom(e.currentTarget.value)} />
        <label for="assign-until">Valid until (empty: until removed)</label>
        <input id="assign-until" type="datetime-local" value={until} onInput={(e) => setUntil(e.currentTarget.value)} />
        {kind === 'position' ? (
          <>
            <label for="assign-reason">Reason</label>
            <input id="assign-reason" maxLength={500} value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
          </>
        ) : null}
        <button type="submit" class="primary" id="assign" disabled={add.busy}>Assign</button>
      </form>
      {added ? <p class="notice success" role="status" id="assigned">{added}</p> : null}
      <form class="inline-form" onSubmit={(e) => e.preventDefault()}>
        <label for="assign-filter">Show the assignments of</label>
        <select id="assign-filter" value={user ?? ''} onChange={(e) => navigate(e.currentTarget.value ? `/admin/assignments?user=${encodeURIComponent(e.currentTarget.value)}` : '/admin/assignments')}>
          <option value="">every user</option>
          {data.users.map((u) => <option key={u.id} value={u.id}>{u.email}</option>)}
        </select>
      </form>
      <ErrorNotice error={error ?? remove.error} />
      {table('Permission sets held', 'sys_user_permission_set', data.userSets, data.sets, 'permission_set')}
      {table('Positions held', 'sys_user_position', data.userPositions, data.positions, 'position')}
    </section>
  );
}
