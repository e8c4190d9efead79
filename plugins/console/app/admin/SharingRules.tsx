import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { FormField, splitErrors } from '../components/FormField.tsx';
import { noticeAuthError } from '../session.ts';
import { useSubmit } from '../useSubmit.ts';
import { allUsers, rowsOf, type AdminUser } from './adminApi.ts';
import { loadObjects, type ObjectInfo } from './objectCatalog.ts';

interface Rule {
  id: string; name: string; object: string; kind: 'owner' | 'criteria'; criteria: Record<string, unknown> | null; owner_position: string | null;
  recipient_type: 'user' | 'position' | 'unit_and_subordinates'; recipient_id: string; access: 'read' | 'edit'; version: number;
}
interface Evaluation { recipient: boolean; gained: string[]; gainedCount: number }
interface Named { id: string; name: string; label?: string | null }

const FIELDS = ['name', 'object', 'kind', 'criteria', 'owner_position', 'recipient_type', 'recipient_id', 'access'];
const RECIPIENTS = { user: 'a user', position: 'holders of a position', unit_and_subordinates: 'a position and those below it' } as const;
const EMPTY = { name: '', object: '', kind: 'criteria' as Rule['kind'], criteria: '', owner_position: '', recipient_type: 'position' as Rule['recipient_type'], recipient_id: '', access: 'read' as Rule['access'] };

/**
 * Sharing rules (`/sharing/rules`, admins): each with the answer of `/sharing/rules/:id/evaluate`
 * for a user the admin picks beside it (is the user a recipient, which records it would gain);
 * create, change (with the version read) and delete.
 */
export function SharingRules() {
  const [rules, setRules] = useState<Rule[] | null>(null);
  const [objects, setObjects] = useState<ObjectInfo[]>([]);
  const [positions, setPositions] = useState<Named[]>([]);
  const [users, setUsers] = useState<AdminUser[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [tick, setTick] = useState(0);
  const [evalUser, setEvalUser] = useState('');
  const [evaluations, setEvaluations] = useState<Record<string, Evaluation | { error: string }>>({});
  const [form, setForm] = useState(EMPTY);
  const [editing, setEditing] = useState<Rule | null>(null);
  const [done, setDone] = useState('');

  useEffect(() => {
    let live = true;
    Promise.all([api<{ items: Rule[] }>('/sharing/rules'), loadObjects(), rowsOf<Named>('sys_position', { orderBy: 'name' }), allUsers()]).then(
      ([r, o, p, u]) => { if (live) { setRules(r.items); setObjects(o.filter((x) => !x.system)); setPositions(p); setUsers(u); setError(null); } },
      (e) => { noticeAuthError(e); if (live) setError(e); },
    );
    return () => { live = false; };
  }, [tick]);

  useEffect(() => {
    let live = true;
    setEvaluations({});
    if (!evalUser || !rules) return undefined;
    void Promise.all(rules.map(async (r) => {
      try {
        return [r.id, await api<Evaluation>(`/sharing/rules/${encodeURIComponent(r.id)}/evaluate`, { method: 'POST', body: { userId: evalUser } })] as const;
      } catch (e) {
        return [r.id, { error: (e as Error).message }] as const;
      }
    })).then((pairs) => { if (live) setEvaluations(Object.fromEntries(pairs)); });
    return () => { live = false; };
  }, [evalUser, rules]);

  const save = useSubmit(async () => {
    let criteria: unknown;
    if (form.kind === 'criteria') {
      try {
        criteria = JSON.parse(form.criteria);
      } catch {
        throw Object.assign(new Error('The criteria is not JSON.'), { fieldErrors: () => ({ criteria: 'must be a where condition in JSON, such as {"status": "open"}' }) });
      }
    }
    const body = {
      name: form.name, object: form.object, kind: form.kind,
      ...(form.kind === 'criteria' ? { criteria } : { owner_position: form.owner_position || undefined }),
      recipient_type: form.recipient_type, recipient_id: form.recipient_id, access: form.access,
    };
    if (editing) await api(`/sharing/rules/${encodeURIComponent(editing.id)}`, { method: 'PATCH', body: { ...body, expectedVersion: editing.version } });
    else await api('/sharing/rules', { method: 'POST', body });
    setDone(editing ? `Rule ${form.name} changed.` : `Rule ${form.name} created.`);
    setEditing(null);
    setForm(EMPTY);
    setTick((n) => n + 1);
  });
  const remove = useSubmit(async (rule: Rule) => {
    await api(`/sharing/rules/${encodeURIComponent(rule.id)}`, { method: 'DELETE' });
    setDone(`Rule ${rule.name} deleted.`);
    if (editing?.id === rule.id) { setEditing(null); setForm(EMPTY); }
    setTick((n) => n + 1);
  });
  const edit = (rule: Rule) => {
    setEditing(rule);
    setDone('');
    setForm({ name: rule.name, object: rule.object, kind: rule.kind, criteria: rule.criteria ? JSON.stringify(rule.criteria) : '', owner_position: rule.owner_position ?? '', recipient_type: rule.recipient_type, recipient_id: rule.recipient_id, access: rule.access });
    document.getElementById('rule-name')?.focus();
  };

  const raw = splitErrors(save.error, [...FIELDS, 'where']);
  const byField: Record<string, string | undefined> = { ...raw.byField, ...(raw.byField.where ? { criteria: raw.byField.where } : {}) };
  const set = (key: keyof typeof EMPTY, value: string) => setForm({ ...form, [key]: value });
  const positionName = (id: string | null) => { const p = positions.find((x) => x.id === id); return p ? (p.label ? `${p.label} (${p.name})` : p.name) : id ?? ''; };
  const recipientOf = (r: Rule) => (r.recipient_type === 'user' ? users.find((u) => u.id === r.recipient_id)?.email ?? r.recipient_id : `${positionName(r.recipient_id)}${r.recipient_type === 'unit_and_subordinates' ? ' and below' : ''}`);
  const chosen = users.find((u) => u.id === evalUser);
  const evaluation = (r: Rule) => {
    if (!evalUser) return <span class="muted">Pick a user above</span>;
    const e = evaluations[r.id];
    if (!e) return <span aria-busy="true">Evaluating…</span>;
    if ('error' in e) return <span class="field-error">{e.error}</span>;
    return (
      <span class="evaluation" data-recipient={String(e.recipient)} data-gained={String(e.gainedCount)}>
        {e.recipient ? 'Recipient' : 'Not a recipient'}; {e.gainedCount === 0 ? 'every record it covers is open to them' : e.gainedCount === 1 ? '1 record it covers is closed to them now' : `${e.gainedCount} records it covers are closed to them now`}
      </span>
    );
  };

  if (!rules) return <section><h1>Sharing rules</h1><ErrorNotice error={error} />{error ? null : <p aria-busy="true">Loading…</p>}</section>;
  return (
    <section class="sharing-rules">
      <header class="screen-head"><h1>Sharing rules</h1></header>
      <p>A rule opens records of an object that is not open to everyone (its sharing model) to a user or a position's holders: those matching a criteria, or those owned by holders of a position.</p>
      <form class="inline-form" onSubmit={(e) => e.preventDefault()}>
        <label for="evaluate-user">Evaluate each rule for</label>
        <select id="evaluate-user" value={evalUser} onChange={(e) => setEvalUser(e.currentTarget.value)}>
          <option value="">nobody yet</option>
          {users.map((u) => <option key={u.id} value={u.id}>{u.email}</option>)}
        </select>
      </form>
      <ErrorNotice error={error ?? remove.error} />
      {done ? <p class="notice success" role="status" id="rule-done">{done}</p> : null}
      {rules.length === 0 ? <p class="empty">No sharing rule.</p> : (
        <div class="table-wrap">
          <table id="sharing-rules">
            <thead><tr><th scope="col">Name</th><th scope="col">Object</th><th scope="col">Opens</th><th scope="col">To</th><th scope="col">Access</th><th scope="col">{chosen ? `For ${chosen.email}` : 'Evaluation'}</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
            <tbody>
              {rules.map((r) => (
                <tr key={r.id} data-id={r.id} data-name={r.name}>
                  <td>{r.name}</td>
                  <td>{r.object}</td>
                  <td>{r.kind === 'criteria' ? <code>{JSON.stringify(r.criteria)}</code> : `records owned by holders of ${positionName(r.owner_position)}`}</td>
                  <td>{recipientOf(r)}</td>
                  <td>{r.access}</td>
                  <td class="evaluation-cell">{evaluation(r)}</td>
                  <td>
                    <button type="button" aria-label={`Edit ${r.name}`} onClick={() => edit(r)}>Edit</button>{' '}
                    <button type="button" class="danger" disabled={remove.busy} aria-label={`Delete ${r.name}`} onClick={() => void remove.run(r)}>Delete</button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <form class="panel-form" onSubmit={save.onSubmit} aria-labelledby="rule-form-title">
        <h2 id="rule-form-title">{editing ? `Change ${editing.name}` : 'New rule'}</h2>
        <ErrorNotice error={raw.rest} />
        <FormField id="rule-name" label="Name" error={byField.name}>
          {(aria) => <input {...aria} maxLength={100} value={form.name} onInput={(e) => set('name', e.currentTarget.value)} />}
        </FormField>
        <FormField id="rule-object" label="Object" error={byField.object}>
          {(aria) => (
            <select {...aria} value={form.object} onChange={(e) => set('object', e.currentTarget.value)}>
              <option value="">Choose an object</option>
              {objects.map((o) => <option key={o.name} value={o.name}>{o.label} ({o.name})</option>)}
            </select>
          )}
        </FormField>
        <FormField id="rule-kind" label="Opens the records" error={byField.kind}>
          {(aria) => (
            <select {...aria} value={form.kind} onChange={(e) => set('kind', e.currentTarget.value)}>
              <option value="criteria">matching a criteria</option>
              <option value="owner">owned by holders of a position</option>
            </select>
          )}
        </FormField>
        {form.kind === 'criteria' ? (
          <FormField id="rule-criteria" label="Criteria (a where condition, JSON)" hint='{"status": "open"}' error={byField.criteria}>
            {(aria) => <textarea {...aria} rows={2} value={form.criteria} onInput={(e) => set('criteria', e.currentTarget.value)} />}
          </FormField>
        ) : (
          <FormField id="rule-owner-position" label="Owners' position" error={byField.owner_position}>
            {(aria) => (
              <select {...aria} value={form.owner_position} onChange={(e) => set('owner_position', e.currentTarget.value)}>
                <option value="">Choose a position</option>
                {positions.map((p) => <option key={p.id} value={p.id}>{positionName(p.id)}</option>)}
              </select>
            )}
          </FormField>
        )}
        <FormField id="rule-recipient-type" label="To" error={byField.recipient_type}>
          {(aria) => (
            <select {...aria} value={form.recipient_type} onChange={(e) => setForm({ ...form, recipient_type: e.currentTarget.value as Rule['recipient_type'], recipient_id: '' })}>
              {Object.entries(RECIPIENTS).map(([value, label]) => <option key={value} value={value}>{label}</option>)}
            </select>
          )}
        </FormField>
        <FormField id="rule-recipient" label={form.recipient_type === 'user' ? 'User' : 'Position'} error={byField.recipient_id}>
          {(aria) => (
            <select {...aria} value={form.recipient_id} onChange={(e) => set('recipient_id', e.currentTarget.value)}>
              <option value="">{form.recipient_type === 'user' ? 'Choose a user' : 'Choose a position'}</option>
              {form.recipient_type === 'user'
                ? users.map((u) => <option key={u.id} value={u.id}>{u.email}</option>)
                : positions.map((p) => <option key={p.id} value={p.id}>{positionName(p.id)}</option>)}
            </select>
          )}
        </FormField>
        <FormField id="rule-access" label="Access" error={byField.access}>
          {(aria) => (
            <select {...aria} value={form.access} onChange={(e) => set('access', e.currentTarget.value)}>
              <option value="read">read</option>
              <option value="edit">read and edit</option>
            </select>
          )}
        </FormField>
        <div class="form-actions">
          <button type="submit" class="primary" id="save-rule" disabled={save.busy}>{editing ? 'Save changes' : 'Create rule'}</button>
          {editing ? <button type="button" onClick={() => { setEditing(null); setForm(EMPTY); }}>Cancel</button> : null}
        </div>
      </form>
    </section>
  );
}
