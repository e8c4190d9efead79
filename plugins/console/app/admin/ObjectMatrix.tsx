import { useState } from 'preact/hooks';
import { OBJECT_ACTIONS, withAction, type ObjectGrants } from './accessModel.ts';
import type { ObjectInfo } from './objectCatalog.ts';

/** Objects by permissions: one checkbox per object and action the set grants. */
export function ObjectMatrix({ objects, value, onChange }: { objects: ObjectInfo[]; value: ObjectGrants; onChange(next: ObjectGrants): void }) {
  const [system, setSystem] = useState(false);
  const shown = objects.filter((o) => !o.system || system || value[o.name]);
  return (
    <section class="object-matrix" aria-labelledby="matrix-title">
      <h2 id="matrix-title">Object permissions</h2>
      <p class="muted">Every member may read, create and edit the objects that are not engine-owned without any set; a set adds to that. View all and modify all open every record whatever its owner.</p>
      <label class="check"><input type="checkbox" checked={system} onChange={(e) => setSystem(e.currentTarget.checked)} /> Show engine-owned objects</label>
      <div class="table-wrap">
        <table id="object-matrix">
          <thead>
            <tr><th scope="col">Object</th>{OBJECT_ACTIONS.map((a) => <th scope="col" key={a.key}>{a.label}</th>)}</tr>
          </thead>
          <tbody>
            {shown.map((o) => (
              <tr key={o.name} data-object={o.name}>
                <th scope="row">{o.label} <span class="muted">({o.name})</span></th>
                {OBJECT_ACTIONS.map((a) => (
                  <td key={a.key} class="check-cell">
                    <input
                      type="checkbox"
                      data-action={a.key}
                      aria-label={`${o.label}: ${a.label}`}
                      checked={value[o.name]?.[a.key] === true}
                      onChange={(e) => onChange(withAction(value, o.name, a.key, e.currentTarget.checked))}
                    />
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
