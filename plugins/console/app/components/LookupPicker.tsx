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
  /** The latest search sent: an older answer arriving after it is dropped. */
  const latest = useRef(0);
  const [active, setActive] = useState(-1);

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
    setActive(-1);
    window.clearTimeout(timer.current);
    const sent = ++latest.current;
    if (!text.trim()) { setOptions(null); return; }
    timer.current = window.setTimeout(async () => {
      let found: Option[];
      try {
        // The text is searched in the name field: typed before it is known, the search waits for it.
        const nameField = (await objectView(reference).catch(() => null))?.nameField ?? null;
        const where = nameField ? JSON.stringify({ [nameField]: { $contains: text.trim() } }) : undefined;
        const page = await api<{ items: Array<Record<string, unknown>> }>(`/data/${reference}`, { query: { where, limit: 10, count: 'none' } });
        found = page.items.map((r) => ({ id: String(r.id), label: String((nameField && r[nameField]) ?? r.id) }));
      } catch {
        found = [];
      }
      if (sent === latest.current) setOptions(found);
    }, 200);
  };
  const choose = (o: Option) => {
    latest.current++;
    onChange(o.id);
    setLabel(o.label);
    setReadable(true);
    setOptions(null);
    setQuery('');
    setActive(-1);
  };
  /** The combobox's keys: arrows move through the matches, Enter chooses, Escape closes. */
  const onKeyDown = (e: KeyboardEvent) => {
    if (!options || options.length === 0) return;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const step = e.key === 'ArrowDown' ? 1 : -1;
      setActive((current) => (current + step + options.length) % options.length);
    } else if (e.key === 'Enter' && active >= 0 && options[active]) {
      e.preventDefault();
      choose(options[active]);
    } else if (e.key === 'Escape') {
      setOptions(null);
      setActive(-1);
    }
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
          aria-activedescendant={options && active >= 0 && options[active] ? `${id}-option-${active}` : undefined}
          aria-invalid={invalid} aria-describedby={[`${id}-chosen`, describedBy].filter(Boolean).join(' ')} placeholder="Search…" value={query}
          onInput={(e) => search(e.currentTarget.value)} onKeyDown={onKeyDown} />
      )}
      {options !== null ? (
        <ul id={`${id}-options`} role="listbox" class="lookup-options" aria-label="Matches">
          {options.length === 0 ? <li class="empty" role="option" aria-selected="false" aria-disabled="true">No match</li> : options.map((o, i) => (
            // The option itself is chosen (a click, or Enter on the combobox): no control nested in it.
            <li key={o.id} id={`${id}-option-${i}`} role="option" class={i === active ? 'active' : undefined} aria-selected={i === active || String(value) === o.id}
              onMouseDown={(e) => e.preventDefault()} onClick={() => choose(o)}>{o.label}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
