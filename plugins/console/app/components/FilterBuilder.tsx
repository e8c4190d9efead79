import { useState } from 'preact/hooks';
import type { FieldDoc } from '../catalog.ts';
import { operatorsFor, parseInput } from '../format.ts';
import type { FilterRow } from '../query.ts';

/** Rows of field, operator and value over the fields the user may read; applied all together. */
export function FilterBuilder({ fields, rows, onApply }: { fields: Record<string, FieldDoc>; rows: FilterRow[]; onApply: (rows: FilterRow[]) => void }) {
  const names = Object.keys(fields).filter((n) => fields[n]!.type !== 'json' && fields[n]!.type !== 'multiselect');
  const [draft, setDraft] = useState<Array<FilterRow & { raw: string }>>(rows.map((r) => ({ ...r, raw: r.value === null || r.value === undefined ? '' : String(r.value) })));
  const update = (i: number, patch: Partial<FilterRow & { raw: string }>) => setDraft(draft.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const add = () => {
    const field = names[0];
    if (field) setDraft([...draft, { field, op: operatorsFor(fields[field]!.type)[0]!.op, value: '', raw: '' }]);
  };
  const apply = (event: Event) => {
    event.preventDefault();
    onApply(draft.map(({ raw, ...r }) => ({ ...r, value: parseInput(raw, fields[r.field]?.type ?? 'text') })));
  };
  return (
    <form class="filters" onSubmit={apply} aria-label="Filters">
      {draft.map((row, i) => {
        const field = fields[row.field]!;
        const ops = operatorsFor(field.type);
        const needsValue = row.op !== '$null' && row.op !== '$notnull';
        return (
          <div class="filter-row" key={i}>
            <select aria-label={`Filter ${i + 1} field`} class="filter-field" value={row.field} onChange={(e) => update(i, { field: e.currentTarget.value, op: operatorsFor(fields[e.currentTarget.value]!.type)[0]!.op, raw: '' })}>
              {names.map((n) => <option key={n} value={n}>{fields[n]!.label}</option>)}
            </select>
            <select aria-label={`Filter ${i + 1} operator`} class="filter-op" value={row.op} onChange={(e) => update(i, { op: e.currentTarget.value })}>
              {ops.map((o) => <option key={o.op} value={o.op}>{o.label}</option>)}
            </select>
            {needsValue ? (
              field.type === 'select' ? (
                <select aria-label={`Filter ${i + 1} value`} class="filter-value" value={row.raw} onChange={(e) => update(i, { raw: e.currentTarget.value })}>
                  <option value="">—</option>
                  {field.options?.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
                </select>
              ) : field.type === 'boolean' ? (
                <select aria-label={`Filter ${i + 1} value`} class="filter-value" value={row.raw} onChange={(e) => update(i, { raw: e.currentTarget.value })}>
                  <option value="true">Yes</option>
                  <option value="false">No</option>
                </select>
              ) : (
                <input aria-label={`Filter ${i + 1} value`} class="filter-value" value={row.raw}
                  type={(['integer', 'number', 'currency', 'percent'].includes(field.type) ? 'number' : field.type === 'date' ? 'date' : 'text') as 'text'}
                  onInput={(e) => update(i, { raw: e.currentTarget.value })} />
              )
            ) : null}
            <button type="button" aria-label={`Remove filter ${i + 1}`} onClick={() => setDraft(draft.filter((_, j) => j !== i))}>✕</button>
          </div>
        );
      })}
      <div class="filter-actions">
        <button type="button" id="add-filter" onClick={add} disabled={names.length === 0}>Add filter</button>
        <button type="submit" id="apply-filters" class="primary">Apply</button>
      </div>
    </form>
  );
}
