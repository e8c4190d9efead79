import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import { recordView, relatedLookups, type RelatedLookup, type ViewDetail } from '../catalog.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { FieldInput } from '../components/FieldInput.tsx';
import { RecordApprovals } from '../components/RecordApprovals.tsx';
import { RecordTabs } from '../components/RecordTabs.tsx';
import type { RecordLock } from '../approvals.ts';
import { holds } from '../conditions.ts';
import { href, navigate } from '../route.ts';
import { noticeAuthError } from '../session.ts';

type Row = Record<string, unknown>;
const COMPUTED = new Set(['formula', 'autonumber']);

/**
 * One record: a form generated from the view's fields and layout (only fields the user may read;
 * the layout of the view the user came from, `from`, when it has a form, else of the object's
 * first view with one), rules evaluated as the user types (the server decides on save), errors on
 * their fields, a 409 offering to reload or reapply, delete to the trash and restore.
 */
export function RecordPage({ object, id, from }: { object: string; id: string; from: string | null }) {
  const creating = id === 'new';
  const [detail, setDetail] = useState<ViewDetail | null>(null);
  const [related, setRelated] = useState<RelatedLookup[]>([]);
  const [back, setBack] = useState<string | null>(null);
  const [stored, setStored] = useState<Row | null>(null);
  const [values, setValues] = useState<Row>({});
  const [changed, setChanged] = useState<Set<string>>(new Set());
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>(null);
  const [missing, setMissing] = useState(false);
  const [conflict, setConflict] = useState(false);
  const [trashed, setTrashed] = useState(false);
  const [saved, setSaved] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [lock, setLock] = useState<RecordLock | null>(null);
  const [approvalsTick, setApprovalsTick] = useState(0);

  const fail = (e: unknown) => { noticeAuthError(e); setError(e); };

  useEffect(() => {
    let live = true;
    void (async () => {
      try {
        // The view, the record and the lookups pointing here are read together and shown at once:
        // the form never shows (nor lets anyone edit) a record that is not there yet, and its tabs
        // do not change once shown. Without the references (an error), there are no related records.
        const reading = creating ? null : api<Row>(`/data/${object}/${encodeURIComponent(id)}`);
        // Its failure is told below, once the view is known (no view: the record is not found).
        reading?.catch(() => undefined);
        const [shown, pointing] = await Promise.all([recordView(object, from), creating ? [] : relatedLookups(object).catch(() => [])]);
        if (!live) return;
        if (!shown) { setMissing(true); return; }
        const view = shown.detail;
        if (creating) {
          const defaults: Row = {};
          for (const [name, field] of Object.entries(view.fields)) if (field.default !== undefined) defaults[name] = field.default;
          setDetail(view); setBack(shown.back); setValues(defaults);
          return;
        }
        const record = await reading!;
        if (!live) return;
        setDetail(view); setBack(shown.back); setRelated(pointing); setStored(record); setValues(record);
      } catch (e) {
        if (!live) return;
        if (e instanceof ApiError && e.status === 404) setMissing(true);
        else fail(e);
      }
    })();
    return () => { live = false; };
  }, [object, id, from]);

  if (missing) {
    return (
      <section class="not-found">
        <h1>Not found</h1>
        <p>There is no such record, or you may not see it.</p>
        <p><a href={href('/')}>Back to the start</a></p>
      </section>
    );
  }
  if (!detail || (!creating && !stored)) return <section><ErrorNotice error={error} />{error ? null : <p aria-busy="true">Loading…</p>}</section>;

  const set = (name: string, value: unknown) => {
    setValues({ ...values, [name]: value });
    setChanged(new Set(changed).add(name));
    if (errors[name]) { const next = { ...errors }; delete next[name]; setErrors(next); }
  };
  const fields = detail.fields;
  const layout = detail.form?.sections ?? [{ label: detail.objectLabel, fields: Object.keys(fields) }];
  const visible = (name: string) => holds(fields[name]?.visibleWhen, values, true);
  // Locked by a pending approval request, unless the user is an approver of its current step.
  const locked = lock !== null && !lock.approver;
  const disabled = (name: string) => {
    const field = fields[name]!;
    // Read-only in metadata, computed, readable but not writable by this user (field-level security), or locked by a pending approval.
    if (field.readonly || COMPUTED.has(field.type) || trashed || locked || detail.readOnlyFields?.includes(name)) return true;
    return !creating && stored !== null && holds(field.readonlyWhen, stored, false);
  };
  const required = (name: string) => Boolean(fields[name]!.required) || holds(fields[name]!.requiredWhen, values, false);

  const payload = () => {
    const body: Row = {};
    for (const name of changed) if (fields[name] && !disabled(name) && visible(name)) body[name] = values[name] ?? null;
    return body;
  };
  const handle = (e: unknown) => {
    if (e instanceof ApiError && e.code === 'CONCURRENT_UPDATE') { setConflict(true); setError(null); return; }
    if (e instanceof ApiError && e.code === 'RECORD_LOCKED') setApprovalsTick((n) => n + 1);
    if (e instanceof ApiError && (e.code === 'VALIDATION_ERROR' || e.status === 400 || e.status === 403)) setErrors(e.fieldErrors());
    fail(e);
  };
  const save = async (event: Event) => {
    event.preventDefault();
    setBusy(true); setError(null); setErrors({}); setSaved(null);
    try {
      if (creating) {
        const record = await api<Row>(`/data/${object}`, { method: 'POST', body: payload() });
        navigate(`/records/${object}/${encodeURIComponent(String(record.id))}${from ? `?view=${encodeURIComponent(from)}` : ''}`, { replace: true });
        return;
      }
      const record = await api<Row>(`/data/${object}/${encodeURIComponent(id)}`, { method: 'PATCH', body: { ...payload(), expectedVersion: stored!.version } });
      setStored(record); setValues(record); setChanged(new Set()); setSaved('Saved.');
    } catch (e) {
      handle(e);
    } finally {
      setBusy(false);
    }
  };
  const latest = async (reapply: boolean) => {
    try {
      const record = await api<Row>(`/data/${object}/${encodeURIComponent(id)}`);
      const mine: Row = {};
      for (const name of changed) mine[name] = values[name];
      setStored(record);
      setValues(reapply ? { ...record, ...mine } : record);
      if (!reapply) setChanged(new Set());
      setConflict(false);
      setSaved(reapply ? 'Your changes are applied to the latest version: save to keep them.' : 'Reloaded.');
    } catch (e) {
      fail(e);
    }
  };
  const remove = async () => {
    if (!window.confirm('Delete this record?')) return;
    try {
      await api(`/data/${object}/${encodeURIComponent(id)}`, { method: 'DELETE', headers: { 'if-match': String(stored!.version) } });
      if (detail.enable.trash) setTrashed(true);
      else navigate(`/views/${back ?? detail.name}`);
    } catch (e) {
      handle(e);
    }
  };
  const restore = async () => {
    try {
      const record = await api<Row>(`/data/${object}/${encodeURIComponent(id)}/restore`, { method: 'POST', body: {} });
      setStored(record); setValues(record); setTrashed(false); setSaved('Restored.');
    } catch (e) {
      fail(e);
    }
  };

  const title = creating ? `New ${detail.objectLabel.toLowerCase()}` : String((detail.nameField && stored?.[detail.nameField]) ?? `${detail.objectLabel} ${id}`);
  return (
    <section class="record">
      <header class="screen-head">
        <p class="crumbs"><a href={href(`/views/${back ?? detail.name}`)}>{detail.pluralLabel}</a></p>
        <h1>{title}</h1>
        {!creating ? (
          <div class="actions">
            {trashed
              ? <button type="button" id="restore-record" class="primary" onClick={() => void restore()}>Restore</button>
              : <button type="button" id="delete-record" class="danger" disabled={locked} onClick={() => void remove()}>Delete</button>}
          </div>
        ) : null}
      </header>
      {trashed ? <p class="notice" role="status" id="trashed">This record is in the trash.</p> : null}
      {lock ? (
        <p class="notice warning" role="status" id="record-lock" data-approver={String(lock.approver)}>
          {lock.approver
            ? `This record awaits approval (${lock.processLabel}, step ${lock.step.label}): as an approver of this step you may still change it.`
            : `Locked: this record awaits approval (${lock.processLabel}, step ${lock.step.label}). Changes are refused until the request is decided.`}
        </p>
      ) : null}
      {conflict ? (
        <div class="notice warning" role="alert" id="conflict">
          <p>Someone else changed this record since you opened it (CONCURRENT_UPDATE).</p>
          <button type="button" id="conflict-reload" onClick={() => void latest(false)}>Reload their version</button>
          <button type="button" id="conflict-reapply" class="primary" onClick={() => void latest(true)}>Reapply my changes</button>
        </div>
      ) : null}
      <ErrorNotice error={error} />
      {saved ? <p class="notice success" role="status" id="saved">{saved}</p> : null}
      <form class="record-form" onSubmit={save} noValidate>
        {layout.map((section) => {
          const shown = section.fields.filter((name) => fields[name] && visible(name));
          if (shown.length === 0) return null;
          return (
            <fieldset key={section.label}>
              <legend>{section.label}</legend>
              {shown.map((name) => (
                <FieldInput key={name} name={name} field={fields[name]!} value={values[name]} disabled={disabled(name)} required={required(name)}
                  error={errors[name]} onChange={(v) => set(name, v)} />
              ))}
            </fieldset>
          );
        })}
        {!trashed && !locked ? <div class="form-actions"><button type="submit" id="save-record" class="primary" disabled={busy}>{busy ? 'Saving…' : creating ? 'Create' : 'Save'}</button></div> : null}
      </form>
      {!creating && !trashed && stored ? <RecordApprovals object={object} id={id} tick={approvalsTick} onLock={setLock} /> : null}
      {!creating && !trashed && stored ? <RecordTabs detail={detail} related={related} id={id} version={stored.version} /> : null}
    </section>
  );
}
