import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { href } from '../route.ts';
import { useList } from '../useList.ts';
import { jsonOf, type FieldGrants, type ObjectGrants } from './accessModel.ts';

interface SetRow { id: string; name: string; label: string | null; objects: unknown; fields: unknown; permissions: unknown }

/** The environment's permission sets, each opening its editor. */
export function PermissionSets() {
  const { items, error } = useList<SetRow>('/data/sys_permission_set', { limit: 200, orderBy: 'name' });
  return (
    <section class="permission-sets">
      <header class="screen-head">
        <h1>Permission sets</h1>
        <div class="actions"><a class="button primary" id="new-permission-set" href={href('/admin/permission-sets/new')}>New permission set</a></div>
      </header>
      <p class="notice" role="note"><strong>A field named in any permission set is hidden from everyone who holds no set granting it.</strong> The editor shows, before you save, who gains or loses each field.</p>
      <ErrorNotice error={error} />
      {items && items.length === 0 ? <p class="empty">No permission set yet.</p> : null}
      {items && items.length > 0 ? (
        <div class="table-wrap">
          <table id="permission-sets">
            <thead><tr><th scope="col">Name</th><th scope="col">Label</th><th scope="col">Objects</th><th scope="col">Fields named</th><th scope="col">Permission keys</th></tr></thead>
            <tbody>
              {items.map((s) => (
                <tr key={s.id} data-id={s.id}>
                  <td><a href={href(`/admin/permission-sets/${encodeURIComponent(s.id)}`)}>{s.name}</a></td>
                  <td>{s.label ?? ''}</td>
                  <td>{Object.keys(jsonOf<ObjectGrants>(s.objects, {})).join(', ')}</td>
                  <td>{Object.keys(jsonOf<FieldGrants>(s.fields, {})).join(', ')}</td>
                  <td>{jsonOf<string[]>(s.permissions, []).join(', ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
