import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { href, navigate } from '../route.ts';
import { noticeAuthError } from '../session.ts';
import { useSubmit } from '../useSubmit.ts';
import { jsonOf, keysOf, type FieldGrants, type ObjectGrants } from './accessModel.ts';
import { FieldPermissions } from './FieldPermissions.tsx';
import { FieldPreview } from './FieldPreview.tsx';
import { ObjectMatrix } from './ObjectMatrix.tsx';
import { loadObjects, type ObjectInfo } from './objectCatalog.ts';

interface SetRecord { id: string; version: number; name: string; label: string | null; objects: unknown; fields: unknown; permissions: unknown }

/**
 * One permission set (`id`, or `new`): its name, the object-by-permission matrix, its field
 * permissions with, before saving, who would gain or lose which field, and its permission keys.
 */
export function PermissionSetEditor({ id }: { id: string }) {
  const isNew = id === 'new';
  const [objects, setObjects] = useState<ObjectInfo[] | null>(null);
  const [record, setRecord] = useState<SetRecord | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [name, setName] = useState('');
  const [label, setLabel] = useState('');
  const [grants, setGrants] = useState<ObjectGrants>({});
  const [fields, setFields] = useState<FieldGrants>({});
  const [keys, setKeys] = useState('');
  const [object, setObject] = useState('');
  const [saved, setSaved] = useState(false);

  useEffect(() => {
    let live = true;
    Promise.all([loadObjects(), isNew ? Promise.resolve(null) : api<SetRecord>(`/data/sys_permission_set/${encodeURIComponent(id)}`)]).then(([list, set]) => {
      if (!live) return;
      setObjects(list);
      setRecord(set);
      const named = set ? jsonOf<FieldGrants>(set.fields, {}) : {};
      setName(set?.name ?? '');
      setLabel(set?.label ?? '');
      setGrants(set ? jsonOf<ObjectGrants>(set.objects, {}) : {});
      setFields(named);
      setKeys(set ? jsonOf<string[]>(set.permissions, []).join(', ') : '');
      setObject(Object.keys(named)[0]?.split('.')[0] ?? list.find((o) => !o.system)?.name ?? list[0]?.name ?? '');
    }, (e) => { noticeAuthError(e); if (live) setError(e); });
    return () => { live = false; };
  }, [id]);

  const save = useSubmit(async () => {
    setSaved(false);
    const permissions = keysOf(keys);
    const values = { name: name.trim(), label: label.trim() || null, objects: grants, fields, permissions };
    if (isNew) {
      const created = await api<SetRecord>('/data/sys_permission_set', { method: 'POST', body: values });
      navigate(`/admin/permission-sets/${encodeURIComponent(created.id)}`, { replace: true });
    } else {
      setRecord(await api<SetRecord>(`/data/sys_permission_set/${encodeURIComponent(id)}`, { method: 'PATCH', body: { ...values, expectedVersion: record!.version } }));
    }
    setSaved(true);
  });
  const remove = useSubmit(async () => {
    await api(`/data/sys_permission_set/${encodeURIComponent(id)}`, { method: 'DELETE' });
    navigate('/admin/permission-sets');
  });

  if (!objects) return <section><p class="crumbs"><a href={href('/admin/permission-sets')}>Permission sets</a></p><ErrorNotice error={error} />{error ? null : <p aria-busy="true">Loading…</p>}</section>;
  return (
    <section class="permission-set">
      <header class="screen-head">
        <p class="crumbs"><a href={href('/admin/permission-sets')}>Permission sets</a></p>
        <h1>{isNew ? 'New permission set' : `Permission set ${record?.name ?? ''}`}</h1>
      </header>
      <p class="notice" role="note"><strong>A field named in any permission set is hidden from everyone who holds no set granting it</strong> (admins excepted). The preview below names the users who gain or lose each field before you save.</p>
      <form class="permission-set-form" onSubmit={(e) => { setSaved(false); save.onSubmit(e); }}>
        <div class="panel-form">
          <label for="set-name">Name</label>
          <input id="set-name" required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
          <label for="set-label">Label</label>
          <input id="set-label" maxLength={200} value={label} onInput={(e) => setLabel(e.currentTarget.value)} />
        </div>
        <ObjectMatrix objects={objects} value={grants} onChange={setGrants} />
        <div class="fields-and-preview">
          <FieldPermissions objects={objects} object={object} onObject={setObject} value={fields} onChange={(next) => { setSaved(false); setFields(next); }} />
          <FieldPreview setId={isNew ? null : id} fields={fields} revision={record?.version ?? 0} />
        </div>
        <div class="panel-form">
          <label for="set-keys">Permission keys (route permissions such as <code>ai:chat</code>, separated by commas)</label>
          <input id="set-keys" value={keys} onInput={(e) => setKeys(e.currentTarget.value)} />
        </div>
        <ErrorNotice error={save.error ?? remove.error} />
        {saved ? <p class="notice success" role="status" id="set-saved">Saved.</p> : null}
        <div class="form-actions">
          <button type="submit" class="primary" id="save-set" disabled={save.busy}>{save.busy ? 'Saving…' : 'Save'}</button>
          {isNew ? null : <button type="button" class="danger" id="delete-set" disabled={remove.busy} onClick={() => void remove.run()}>Delete</button>}
        </div>
      </form>
    </section>
  );
}
