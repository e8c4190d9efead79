import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import type { RelatedLookup } from '../catalog.ts';
import { formatValue } from '../format.ts';
import { orderByParam } from '../query.ts';
import { href } from '../route.ts';
import { noticeAuthError } from '../session.ts';
import { ErrorNotice } from './ErrorNotice.tsx';

/** Records listed per lookup at a time. */
const PAGE = 10;

/**
 * The records of other objects whose lookups point to this record, one list per lookup the user
 * may read (relatedLookups), each read through the list API with the lookup's `$eq` filter.
 */
export function RelatedRecords({ id, lookups }: { id: string; lookups: RelatedLookup[] }) {
  return (
    <div class="related">
      {lookups.map((l) => <RelatedList key={`${l.object}.${l.field}`} id={id} lookup={l} />)}
    </div>
  );
}

interface Page { items: Array<Record<string, unknown>>; total?: number; totalEstimated?: true; nextCursor?: string | null }

function RelatedList({ id, lookup }: { id: string; lookup: RelatedLookup }) {
  const { detail, field } = lookup;
  const [items, setItems] = useState<Array<Record<string, unknown>> | null>(null);
  const [total, setTotal] = useState<string>('');
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const read = async (cursor: string | null, before: Array<Record<string, unknown>>) => {
    try {
      const page = await api<Page>(`/data/${detail.object}`, {
        query: {
          where: JSON.stringify({ [field]: { $eq: id } }),
          orderBy: orderByParam(detail.orderBy),
          limit: PAGE,
          cursor: cursor ?? undefined,
          count: cursor ? 'none' : 'estimated',
        },
      });
      setItems([...before, ...page.items]);
      setNext(page.nextCursor ?? null);
      if (page.total !== undefined) setTotal(`${page.total.toLocaleString()}${page.totalEstimated ? '+' : ''}`);
      setError(null);
    } catch (e) {
      noticeAuthError(e);
      setError(e);
    }
  };
  useEffect(() => { void read(null, []); }, [id, detail.object, field]);
  const nameField = detail.nameField;
  const headingId = `related-${detail.object}-${field}`;
  return (
    <section class="related-list" data-object={detail.object} data-field={field} aria-labelledby={headingId}>
      <h2 id={headingId}>{detail.pluralLabel} <span class="muted">by {detail.fields[field]?.label ?? field}</span>{total ? ` (${total})` : ''}</h2>
      <ErrorNotice error={error} />
      {items && items.length === 0 ? <p class="empty">None.</p> : null}
      <ul>
        {(items ?? []).map((r) => {
          const rid = String(r.id);
          const text = nameField ? formatValue(r[nameField], detail.fields[nameField], nameField) : '';
          return <li key={rid} data-id={rid}><a href={href(`/records/${detail.object}/${encodeURIComponent(rid)}`)}>{text || rid}</a></li>;
        })}
      </ul>
      {next ? <button type="button" class="related-more" onClick={() => void read(next, items ?? [])}>More {detail.pluralLabel.toLowerCase()}</button> : null}
    </section>
  );
}
