import { useEffect, useState } from 'preact/hooks';
import { api, request } from '../api.ts';
import { viewDetail, views, type ViewDetail } from '../catalog.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { FilterBuilder } from '../components/FilterBuilder.tsx';
import { LookupValue } from '../components/LookupValue.tsx';
import { formatValue } from '../format.ts';
import { orderByParam, whereOf, type FilterRow } from '../query.ts';
import { href } from '../route.ts';
import { noticeAuthError } from '../session.ts';
import { useLookupNames } from '../useLookupNames.ts';

interface Page {
  items: Array<Record<string, unknown>>;
  total?: number;
  totalEstimated?: true;
  nextCursor?: string | null;
}

type Sort = { field: string; order: 'asc' | 'desc' };

/** The export formats of `POST /data/:object/export` the list offers, by button label. */
const EXPORTS = [{ format: 'csv', label: 'CSV' }, { format: 'xlsx', label: 'XLSX' }, { format: 'pdf', label: 'PDF' }] as const;

/**
 * A view's records: its columns (lookups by the referenced record's name), its where and the user's
 * filters, sort by column, cursor paging, select and delete, export of the query as CSV, XLSX or PDF.
 */
export function ListView({ name }: { name: string }) {
  const [detail, setDetail] = useState<ViewDetail | null>(null);
  const [filters, setFilters] = useState<FilterRow[]>([]);
  const [sort, setSort] = useState<Sort[] | null>(null);
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const [page, setPage] = useState<Page | null>(null);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [error, setError] = useState<unknown>(null);
  const [showFilters, setShowFilters] = useState(false);
  const [reload, setReload] = useState(0);

  useEffect(() => {
    setDetail(null);
    setFilters([]);
    setSort(null);
    setCursors([undefined]);
    setError(null);
    viewDetail(name).then(setDetail, (e) => { noticeAuthError(e); setError(e); });
  }, [name]);

  const orderBy = sort ?? detail?.orderBy ?? [];
  const where = detail ? whereOf(detail.where, filters) : undefined;
  const cursor = cursors[cursors.length - 1];

  useEffect(() => {
    if (!detail) return;
    let live = true;
    setError(null);
    api<Page>(`/data/${detail.object}`, {
      query: {
        where: where ? JSON.stringify(where) : undefined,
        orderBy: orderByParam(orderBy),
        limit: detail.pageSize,
        cursor,
        count: 'estimated',
      },
    }).then((p) => { if (live) { setPage(p); setSelected(new Set()); } }, (e) => { noticeAuthError(e); if (live) setError(e); });
    return () => { live = false; };
  }, [detail, JSON.stringify(where), JSON.stringify(orderBy), cursor, reload]);

  const names = useLookupNames(page?.items ?? null, detail?.columns ?? [], detail?.fields ?? {});

  if (!detail) return <section><ErrorNotice error={error} />{error ? null : <p aria-busy="true">Loading…</p>}</section>;

  const others = (views.value ?? []).filter((v) => v.object === detail.object);
  const first = page?.items ?? [];
  const toggleSort = (field: string) => {
    const current = orderBy[0];
    const order = current?.field === field && current.order === 'asc' ? 'desc' : 'asc';
    setSort([{ field, order }]);
    setCursors([undefined]);
  };
  const remove = async () => {
    if (selected.size === 0 || !window.confirm(`Delete ${selected.size} record(s)?`)) return;
    try {
      for (const id of selected) await api(`/data/${detail.object}/${encodeURIComponent(id)}`, { method: 'DELETE' });
    } catch (e) {
      noticeAuthError(e);
      setError(e);
    }
    setReload(reload + 1);
  };
  const exportAs = async (format: string) => {
    try {
      const response = await request(`/data/${detail.object}/export`, {
        method: 'POST',
        body: { format, ...(where ? { where } : {}), ...(orderBy.length ? { orderBy } : {}), fields: ['id', ...detail.columns.filter((c) => c !== 'id')] },
      });
      const url = URL.createObjectURL(await response.blob());
      const a = document.createElement('a');
      a.href = url;
      a.download = `${detail.name}.${format}`;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (e) {
      noticeAuthError(e);
      setError(e);
    }
  };
  const total = page?.total === undefined ? null : page.totalEstimated ? `${page.total.toLocaleString()}+` : page.total.toLocaleString();
  const allSelected = first.length > 0 && first.every((r) => selected.has(String(r.id)));

  return (
    <section class="list-view">
      <header class="screen-head">
        <h1>{detail.label}</h1>
        {others.length > 1 ? (
          <label class="view-switch">
            <span>View</span>
            <select aria-label="View" value={detail.name} onChange={(e) => { window.history.pushState(null, '', href(`/views/${e.currentTarget.value}`)); window.dispatchEvent(new PopStateEvent('popstate')); }}>
              {others.map((v) => <option key={v.name} value={v.name}>{v.label}</option>)}
            </select>
          </label>
        ) : null}
        <div class="actions">
          <a class="button primary" id="new-record" href={href(`/records/${detail.object}/new?view=${encodeURIComponent(detail.name)}`)}>New</a>
          <button type="button" id="toggle-filters" aria-expanded={showFilters} onClick={() => setShowFilters(!showFilters)}>Filter{filters.length ? ` (${filters.length})` : ''}</button>
          {EXPORTS.map((e) => <button key={e.format} type="button" id={`export-${e.format}`} onClick={() => void exportAs(e.format)}>Export {e.label}</button>)}
          <a class="button" id="open-import" href={href(`/import/${detail.object}`)}>Import CSV</a>
          <button type="button" id="delete-selected" class="danger" disabled={selected.size === 0} onClick={() => void remove()}>Delete selected</button>
          {detail.enable.trash ? <a class="button" id="open-trash" href={href(`/trash/${detail.object}`)}>Trash</a> : null}
        </div>
      </header>
      {detail.description ? <p>{detail.description}</p> : null}
      {showFilters ? <FilterBuilder fields={detail.fields} rows={filters} onApply={(rows) => { setFilters(rows); setCursors([undefined]); }} /> : null}
      <ErrorNotice error={error} />
      <p class="total" id="total" aria-live="polite">{total === null ? '' : `${total} record${page?.total === 1 ? '' : 's'}`}</p>
      <div class="table-wrap">
        <table>
          <caption class="visually-hidden">{detail.label}</caption>
          <thead>
            <tr>
              <th scope="col" class="select">
                <input type="checkbox" aria-label="Select all rows" checked={allSelected}
                  onChange={() => setSelected(allSelected ? new Set() : new Set(first.map((r) => String(r.id))))} />
              </th>
              {detail.columns.map((column) => {
                const field = detail.fields[column];
                const active = orderBy[0]?.field === column ? orderBy[0].order : null;
                return (
                  <th scope="col" key={column} aria-sort={active === 'asc' ? 'ascending' : active === 'desc' ? 'descending' : 'none'}>
                    <button type="button" class="sort" data-column={column} onClick={() => toggleSort(column)}>
                      {field?.label ?? column.replace(/_/g, ' ')}{active === 'asc' ? ' ▲' : active === 'desc' ? ' ▼' : ''}
                    </button>
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            {first.map((row) => {
              const id = String(row.id);
              return (
                <tr key={id} data-id={id}>
                  <td class="select">
                    <input type="checkbox" aria-label={`Select row ${id}`} checked={selected.has(id)}
                      onChange={() => { const next = new Set(selected); if (next.has(id)) next.delete(id); else next.add(id); setSelected(next); }} />
                  </td>
                  {detail.columns.map((column, i) => {
                    const field = detail.fields[column];
                    const value = row[column];
                    const lookup = field?.type === 'lookup' && field.reference && value !== null && value !== undefined && value !== '' ? { object: field.reference, id: String(value) } : null;
                    const recordLink = (text: string) => <a href={href(`/records/${detail.object}/${encodeURIComponent(id)}?view=${encodeURIComponent(detail.name)}`)}>{text || id}</a>;
                    let cell;
                    if (lookup && i === 0) cell = recordLink(names?.get(lookup.object)?.get(lookup.id) ?? lookup.id);
                    else if (lookup) cell = <LookupValue object={lookup.object} id={lookup.id} names={names} />;
                    else {
                      const text = formatValue(value, field, column);
                      cell = i === 0 ? recordLink(text) : text;
                    }
                    return <td key={column} class={`type-${field?.type ?? 'system'}`}>{cell}</td>;
                  })}
                </tr>
              );
            })}
          </tbody>
        </table>
        {page && first.length === 0 ? <p class="empty">No records.</p> : null}
      </div>
      <nav class="pager" aria-label="Pages">
        <button type="button" id="prev-page" disabled={cursors.length <= 1} onClick={() => setCursors(cursors.slice(0, -1))}>Previous</button>
        <span>Page {cursors.length}</span>
        <button type="button" id="next-page" disabled={!page?.nextCursor} onClick={() => page?.nextCursor && setCursors([...cursors, page.nextCursor])}>Next</button>
      </nav>
    </section>
  );
}

