import type { FieldDoc } from '../catalog.ts';
import { parseInput } from '../format.ts';
import { LookupPicker } from './LookupPicker.tsx';

const NUMERIC = new Set(['integer', 'number', 'currency', 'percent']);

/** The control of one field by its type, labelled, with its error under it. */
export function FieldInput({ name, field, value, disabled, required, error, onChange }: {
  name: string; field: FieldDoc; value: unknown; disabled: boolean; required: boolean; error?: string | undefined; onChange: (value: unknown) => void;
}) {
  const id = `field-${name}`;
  const errorId = error ? `${id}-error` : undefined;
  const help = field.help ? `${id}-help` : undefined;
  const describedBy = [errorId, help].filter(Boolean).join(' ') || undefined;
  const common = { id, name, disabled, 'aria-invalid': Boolean(error), 'aria-describedby': describedBy, required };
  let control;
  if (field.type === 'boolean') {
    control = <input {...common} type="checkbox" required={false} checked={value === true || value === 1} onChange={(e) => onChange(e.currentTarget.checked)} />;
  } else if (field.type === 'select') {
    control = (
      <select {...common} value={value === null || value === undefined ? '' : String(value)} onChange={(e) => onChange(e.currentTarget.value === '' ? null : e.currentTarget.value)}>
        <option value="">—</option>
        {field.options?.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
      </select>
    );
  } else if (field.type === 'multiselect') {
    const chosen = Array.isArray(value) ? value.map(String) : [];
    control = (
      <select {...common} multiple onChange={(e) => onChange([...e.currentTarget.selectedOptions].map((o) => o.value))}>
        {field.options?.map((o) => <option key={o.value} value={o.value} selected={chosen.includes(o.value)}>{o.label}</option>)}
      </select>
    );
  } else if (field.type === 'lookup' && field.reference) {
    control = <LookupPicker id={id} reference={field.reference} value={value} disabled={disabled} invalid={Boolean(error)} describedBy={describedBy} onChange={onChange} />;
  } else if (field.type === 'textarea' || field.type === 'richtext') {
    control = <textarea {...common} rows={4} value={value === null || value === undefined ? '' : String(value)} onInput={(e) => onChange(e.currentTarget.value === '' ? null : e.currentTarget.value)} />;
  } else if (field.type === 'json') {
    control = <textarea {...common} rows={4} value={value === null || value === undefined ? '' : JSON.stringify(value, null, 2)} onInput={(e) => { try { onChange(JSON.parse(e.currentTarget.value)); } catch { /* kept until it parses */ } }} />;
  } else {
    const type = NUMERIC.has(field.type) ? 'number' : field.type === 'date' ? 'date' : field.type === 'datetime' ? 'datetime-local' : field.type === 'email' ? 'email' : field.type === 'url' ? 'url' : field.type === 'phone' ? 'tel' : 'text';
    let shown = value === null || value === undefined ? '' : String(value);
    if (field.type === 'datetime' && shown) {
      // The user's time zone on screen, ISO in UTC to the API.
      const d = new Date(shown);
      if (!Number.isNaN(d.getTime())) shown = new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    }
    if (field.type === 'date') shown = shown.slice(0, 10);
    control = (
      <input {...common} type={type as 'text'} value={shown} step={field.type === 'integer' ? 1 : NUMERIC.has(field.type) ? 'any' : undefined}
        maxLength={field.maxLength} min={field.min} max={field.max}
        onInput={(e) => {
          const raw = e.currentTarget.value;
          if (field.type === 'datetime') onChange(raw === '' ? null : new Date(raw).toISOString());
          else onChange(parseInput(raw, field.type));
        }} />
    );
  }
  return (
    <div class={`field type-${field.type}${error ? ' has-error' : ''}`} data-field={name}>
      <label for={id}>{field.label}{required ? <span aria-hidden="true"> *</span> : null}</label>
      {control}
      {field.help ? <small id={help}>{field.help}</small> : null}
      {error ? <p class="field-error" id={errorId}>{error}</p> : null}
    </div>
  );
}
