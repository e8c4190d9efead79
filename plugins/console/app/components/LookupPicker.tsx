import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { objectView } from '../catalog.ts';
import { href } from '../route.ts';

interface Option { id: string; label: string }

/**
 * A lookup chosen by searching the referenced object by its name field; shows the chosen record's
 * name linking to its page, or its id when the user may not read the record or its name.
 */
export function LookupPicker({ id, reference, value, disabled, invalid, describedBy, onChange }: {
  id: string; reference: string; value: unknown; disabled: boolean; invalid: boolean; describedBy?: string | undefined; onChange: (value: string | null) => void;
}) {
  const [label, setLabel] = useState<string>('');
  /** Whether the chosen record was read (so its page can be linked): false while unknown or not readable. */
  const [readable, setReadable] = useState(false);
  const [query, setQuery] = useState('');
  const [options, setOptions] = useState<Option[] | null>(null);
  const [nameField, setNameField] = useState<string | null | undefined>(undefined);
  const timer = useRef<number | undefined>(undefined);

  useEffect(() => {
    void objectView(reference).then((v) => setNameField(v?.nameField ?? null), () => setNameField(null));
  }, [reference]);

  useEffect(() => {
    setReadable(false);
    if (value === null || value === undefined || value === '' || nameField === undefined) { setLabel(''); return; }
    api<Record<string, unknown>>(`/data/${reference}/${encodeURIComponent(String(value))}`)
      .then((r) => { setLabel(String((nameField && r[nameField]) ?? r.id)); setReadable(true); }, () => setLabel(String(value)));
  }, [value, nameField, reference]);

  const search = (text: string) => {
    setQuery(text);
    window.clearTimeout(timer.current);
    if (!text.trim()) { setOptions(null); return; }
    timer.current = window.setTimeout(async () => {
      try {
        const where = nameField ? JSON.stringify({ [nameField]: { $contains: text.trim() } }) : undefined;
        const page = await api<{ items: Array<Record<string, unknown>> }>(`/data/${reference}`, { query: { where, limit: 10, count: 'none' } });
        setOptions(page.items.map((r) => ({ id: String(r.id), label: String((nameField && r[nameField]) ?? r.id) })));
      } catch {
        setOptions([]);
      }
    }, 200);
  };

  return (
    <div class="lookup">
      <div class="lookup-current">
        <span id={`${id}-chosen`} class="chosen" data-lookup={!label ? 'none' : readable ? 'name' : 'hidden'}>
          {label && readable ? <a href={href(`/records/${reference}/${encodeURIComponent(String(value))}`)}>{label}</a> : label || '—'}
        </span>
        {label && !readable && nameField !== undefined ? <span class="muted">(not visible to you)</span> : null}
        {value && !disabled ? <button type="button" class="link" aria-label="Clear" onClick={() => onChange(null)}>Clear</button> : null}
      </div>
      {disabled ? null : (
        <input id={id} type="search" role="combobox" list={undefined} aria-expanded={options !== null} aria-controls={`${id}-options`} aria-autocomplete="list"
          aria-invalid={invalid} aria-describedby={[`${id}-chosen`, describedBy].filter(Boolean).join(' ')} placeholder="Search…" value={query}
          onInput={(e) => search(e.currentTarget.value)} />
      )}
      {options !== null ? (
        <ul id={`${id}-options`} role="listbox" class="lookup-options" aria-label="Matches">
          {options.length === 0 ? <li class="empty">No match</li> : options.map((o) => (
            <li key={o.id} role="option" aria-selected={String(value) === o.id}>
              <button type="button" onClick={() => { onChange(o.id); setLabel(o.label); setReadable(true); setOptions(null); setQuery(''); }}>{o.label}</button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
