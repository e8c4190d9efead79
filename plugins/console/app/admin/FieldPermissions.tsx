import { FIELD_LEVELS, levelOf, withLevel, type FieldGrants, type FieldLevel } from './accessModel.ts';
import type { ObjectInfo } from './objectCatalog.ts';

/** The set's field permissions for one object at a time, with the fields it names elsewhere listed. */
export function FieldPermissions({ objects, object, onObject, value, onChange }: {
  objects: ObjectInfo[];
  object: string;
  onObject(name: string): void;
  value: FieldGrants;
  onChange(next: FieldGrants): void;
}) {
  const chosen = objects.find((o) => o.name === object);
  const elsewhere = Object.keys(value).filter((key) => !key.startsWith(`${object}.`));
  return (
    <section class="field-permissions" aria-labelledby="fields-title">
      <h2 id="fields-title">Field permissions</h2>
      <label for="field-object">Object</label>
      <select id="field-object" value={object} onChange={(e) => onObject(e.currentTarget.value)}>
        {objects.map((o) => <option key={o.name} value={o.name}>{o.label} ({o.name})</option>)}
      </select>
      {elsewhere.length > 0 ? <p class="muted">Also named by this set: {elsewhere.join(', ')}.</p> : null}
      {chosen ? (
        <div class="table-wrap">
          <table id="field-grants">
            <thead><tr><th scope="col">Field</th><th scope="col">In this set</th></tr></thead>
            <tbody>
              {chosen.fields.map((f) => {
                const key = `${chosen.name}.${f.name}`;
                return (
                  <tr key={key} data-field={key}>
                    <th scope="row"><label for={`level-${f.name}`}>{f.label}</label> <span class="muted">({f.name})</span></th>
                    <td>
                      <select id={`level-${f.name}`} value={levelOf(value, key)} onChange={(e) => onChange(withLevel(value, key, e.currentTarget.value as FieldLevel))}>
                        {FIELD_LEVELS.map((l) => <option key={l.value} value={l.value}>{l.label}</option>)}
                      </select>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
