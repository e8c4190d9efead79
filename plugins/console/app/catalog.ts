import { signal } from '@preact/signals';
import { api } from './api.ts';
import { formViewOf } from './formView.ts';
import { readableSource, referencingLookups, type Reference, type RelatedSource } from './relatedSources.ts';
import type { ViewDetail, ViewDoc } from '../../meta/api/viewDocs.ts';

export type { FieldDoc, ViewDetail, ViewDoc } from '../../meta/api/viewDocs.ts';

/** The views the signed-in user may use (`GET /meta/view`), loaded once per session and environment. */
export const views = signal<ViewDoc[] | null>(null);

/** The read under way, shared by every screen asking at once; dropped by forgetCatalog. */
let loading: Promise<ViewDoc[]> | null = null;

export function loadViews(): Promise<ViewDoc[]> {
  if (loading) return loading;
  const read: Promise<ViewDoc[]> = api<{ items: ViewDoc[] }>('/meta/view').then((answer) => {
    // An answer for a session (or an environment) forgotten meanwhile is not this one's.
    if (loading === read) { views.value = answer.items; loading = null; }
    return answer.items;
  }, (error: unknown) => {
    if (loading === read) loading = null;
    throw error;
  });
  loading = read;
  return read;
}

const details = new Map<string, Promise<ViewDetail>>();

export function viewDetail(name: string): Promise<ViewDetail> {
  let found = details.get(name);
  if (!found) {
    found = api<ViewDetail>(`/meta/view/${encodeURIComponent(name)}`);
    found.catch(() => details.delete(name));
    details.set(name, found);
  }
  return found;
}

/** The default view of each object the user may read (the API marks exactly one per object). */
export function defaultViews(list: ViewDoc[]): ViewDoc[] {
  return list.filter((v) => v.default);
}

/** The object's default view, or undefined when the user may read no view of it. */
export function defaultViewOf(list: ViewDoc[], object: string): ViewDoc | undefined {
  return list.find((v) => v.object === object && v.default);
}

/** The default view of an object with what renders it, or null when the user may read none. */
export async function objectView(object: string): Promise<ViewDetail | null> {
  const view = defaultViewOf(views.value ?? await loadViews(), object);
  return view ? viewDetail(view.name) : null;
}

/**
 * What a record page renders: the view whose form it shows (formViewOf) with the fields the user
 * may read, and the list to go back to (the view the user came from when it is one of the
 * object's, else the view shown). Null when the user may use no view of the object.
 */
export async function recordView(object: string, from: string | null): Promise<{ detail: ViewDetail; back: string } | null> {
  const list = views.value ?? await loadViews();
  const view = formViewOf(list, object, from);
  if (!view) return null;
  const came = list.find((v) => v.object === object && v.name === from);
  return { detail: await viewDetail(view.name), back: came?.name ?? view.name };
}

/** A lookup pointing to an object that the user may read, with the default view of the object holding it. */
export interface RelatedLookup extends RelatedSource {
  detail: ViewDetail;
}

const related = new Map<string, Promise<RelatedLookup[]>>();

/**
 * The lookups pointing to an object (`/meta/object/:name/references`) that the user may read: of
 * objects it may list, fields its view of them holds. Loaded once per object and session.
 */
export function relatedLookups(object: string): Promise<RelatedLookup[]> {
  let found = related.get(object);
  if (!found) {
    found = (async () => {
      const list = views.value ?? await loadViews();
      const listable = new Set(defaultViews(list).map((v) => v.object));
      const refs = await api<{ items: Reference[] }>(`/meta/object/${encodeURIComponent(object)}/references`);
      const out: RelatedLookup[] = [];
      for (const source of referencingLookups(refs.items, listable)) {
        const detail = await objectView(source.object);
        if (detail && readableSource(source, detail.fields, object)) out.push({ ...source, detail });
      }
      return out;
    })();
    found.catch(() => related.delete(object));
    related.set(object, found);
  }
  return found;
}

export function forgetCatalog(): void {
  loading = null;
  views.value = null;
  details.clear();
  related.clear();
}
