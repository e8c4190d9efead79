import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { FormField, splitErrors } from '../components/FormField.tsx';
import { formatValue } from '../format.ts';
import { currentUser, isAdmin, noticeAuthError } from '../session.ts';
import { useSubmit } from '../useSubmit.ts';

interface Delegation { id: string; user_id: string; position: string; delegated_by: string; reason: string | null; valid_from: string | null; valid_until: string | null }
interface Delegable { position: string; name: string; label: string | null; delegator: string; valid_from: string | null; valid_until: string | null }
interface Answer {
  items: Delegation[];
  delegable: Delegable[];
  positions: Record<string, { name: string; label: string | null }>;
  people: Record<string, { name: string; email: string | null }>;
}

const FIELDS = ['position', 'email', 'delegated_by', 'valid_from', 'valid_until', 'reason'];
const DAY = 86_400_000;
const when = (value: string | null) => (value ? formatValue(value, undefined, 'at_at') : 'open');

/** A `datetime-local` value (the user's time zone) `offset` ms from now. */
function localIn(offset: number): string {
  const d = new Date(Date.now() + offset);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
const instant = (local: string) => { const d = new Date(local); return Number.isNaN(d.getTime()) ? local : d.toISOString(); };

function stateOf(d: Delegation, now = Date.now()): 'Active' | 'Not started' | 'Ended' {
  if (d.valid_from && Date.parse(d.valid_from) > now) return 'Not started';
  if (d.valid_until && Date.parse(d.valid_until) <= now) return 'Ended';
  return 'Active';
}

/**
 * Delegations (`/access/delegations`): a holder of a delegatable position hands it to someone for
 * at most 30 days with a reason (admins record one for any holder); the delegations the user gave
 * or received (admins: all), each ended with **End**. The rules are the API's: its errors are shown
 * on their fields.
 */
export function Delegations() {
  const [data, setData] = useState<Answer | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [tick, setTick] = useState(0);
  const [choice, setChoice] = useState('');
  const [email, setEmail] = useState('');
  const [from, setFrom] = useState(localIn(0));
  const [until, setUntil] = useState(localIn(7 * DAY));
  const [reason, setReason] = useState('');
  const [done, setDone] = useState('');
  useEffect(() => {
    let live = true;
    api<Answer>('/access/delegations').then((a) => { if (live) { setData(a); setError(null); } }, (e) => { noticeAuthError(e); if (live) setError(e); });
    return () => { live = false; };
  }, [tick]);
  const admin = isAdmin(currentUser());
  const record = useSubmit(async () => {
    const picked = data?.delegable.find((d) => `${d.position}:${d.delegator}` === choice);
    if (!picked) throw Object.assign(new Error('Choose the position to delegate.'), { fieldErrors: () => ({ position: 'Choose the position to delegate.' }) });
    const created = await api<Delegation>('/access/delegations', {
      method: 'POST',
      body: { position: picked.position, email, valid_from: instant(from), valid_until: instant(until), reason, ...(admin ? { delegated_by: picked.delegator } : {}) },
    });
    setDone(`${email} holds ${picked.label ?? picked.name} until ${when(created.valid_until)}.`);
    setEmail('');
    setReason('');
    setTick((n) => n + 1);
  });
  const end = useSubmit(async (d: Delegation) => {
    await api(`/access/delegations/${encodeURIComponent(d.id)}/end`, { method: 'POST' });
    setDone('The delegation has ended.');
    setTick((n) => n + 1);
  });
  if (!data) return <section><h1>Delegations</h1><ErrorNotice error={error} />{error ? null : <p aria-busy="true">Loading…</p>}</section>;
  const who = (id: string) => data.people[id]?.email ?? data.people[id]?.name ?? id;
  const position = (id: string) => { const p = data.positions[id]; return p ? p.label ?? p.name : id; };
  const { byField, rest } = splitErrors(record.error, FIELDS);
  const me = currentUser()?.id;
  return (
    <section class="delegations">
      <header class="screen-head"><h1>Delegations</h1></header>
      <p>A position you hold yourself and that may be delegated can be handed to someone else while you are away: for 30 days at most, with a reason, within your own assignment of it. A position held through a delegation is never passed on, and one with the admin scope is never delegated.</p>
      {done ? <p class="notice success" role="status" id="delegation-done">{done}</p> : null}
      {data.delegable.length === 0 ? <p class="empty" id="nothing-to-delegate">{admin ? 'Nobody holds a delegatable position directly.' : 'You hold no position that may be delegated.'}</p> : (
        <form class="panel-form" onSubmit={record.onSubmit} aria-labelledby="delegate-title">
          <h2 id="delegate-title">Delegate a position</h2>
          <ErrorNotice error={rest} />
          <FormField id="delegation-position" label="Position" error={byField.position ?? byField.delegated_by}>
            {(aria) => (
              <select {...aria} value={choice} onChange={(e) => setChoice(e.currentTarget.value)}>
                <option value="">Choose a position</option>
                {data.delegable.map((d) => (
                  <option key={`${d.position}:${d.delegator}`} value={`${d.position}:${d.delegator}`}>
                    {d.label ? `${d.label} (${d.name})` : d.name}{admin || d.delegator !== me ? `, held by ${who(d.delegator)}` : ''}{d.valid_until ? ` until ${when(d.valid_until)}` : ''}
                  </option>
                ))}
              </select>
            )}
          </FormField>
          <FormField id="delegation-email" label="To (their email address)" error={byField.email}>
            {(aria) => <input {...aria} type="email" autocomplete="off" value={email} onInput={(e) => setEmail(e.currentTarget.value)} />}
          </FormField>
          <FormField id="delegation-from" label="From" error={byField.valid_from}>
            {(aria) => <input {...aria} type="datetime-local" value={from} onInput={(e) => setFrom(e.currentTarget.value)} />}
          </FormField>
          <FormField id="delegation-until" label="Until (30 days at most)" error={byField.valid_until}>
            {(aria) => <input {...aria} type="datetime-local" value={until} onInput={(e) => setUntil(e.currentTarget.value)} />}
          </FormField>
          <FormField id="delegation-reason" label="Reason" error={byField.reason}>
            {(aria) => <input {...aria} maxLength={500} value={reason} onInput={(e) => setReason(e.currentTarget.value)} />}
          </FormField>
          <button type="submit" class="primary" id="record-delegation" disabled={record.busy}>Delegate</button>
        </form>
      )}
      <h2>{admin ? 'Every delegation' : 'Delegations you gave or received'}</h2>
      <ErrorNotice error={error ?? end.error} />
      {data.items.length === 0 ? <p class="empty">None.</p> : (
        <div class="table-wrap">
          <table id="delegations">
            <thead><tr><th scope="col">To</th><th scope="col">Position</th><th scope="col">By</th><th scope="col">Reason</th><th scope="col">From</th><th scope="col">Until</th><th scope="col">Now</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
            <tbody>
              {data.items.map((d) => {
                const state = stateOf(d);
                return (
                  <tr key={d.id} data-id={d.id}>
                    <td>{who(d.user_id)}</td>
                    <td>{position(d.position)}</td>
                    <td>{who(d.delegated_by)}</td>
                    <td>{d.reason ?? ''}</td>
                    <td>{when(d.valid_from)}</td>
                    <td>{when(d.valid_until)}</td>
                    <td class="delegation-state">{state}</td>
                    <td>{state === 'Ended' ? null : <button type="button" disabled={end.busy} aria-label={`End the delegation of ${position(d.position)} to ${who(d.user_id)}`} onClick={() => void end.run(d)}>End</button>}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
