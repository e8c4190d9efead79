import { SOURCES, type Offsets, type Source } from './timelineCursor.ts';

export type ActivityKind = 'history' | 'comment' | 'file' | 'approval' | 'email';

export interface Activity {
  kind: ActivityKind;
  /** ISO 8601 instant. */
  at: string;
  by: string | null;
  summary: string;
  ref: Record<string, string>;
  data: Record<string, unknown>;
}

/** One source's next items, newest first, and whether it holds more than those. */
export interface SourcePage {
  items: Activity[];
  more: boolean;
}

/**
 * The next `limit` items of the timeline: a merge of the sources' pages (each newest first), newest
 * first, ties broken by SOURCES order; each source keeps its own order. Answers the items and the
 * offsets reached; `more` when any source still holds items after them.
 */
export function mergeTimeline(pages: Partial<Record<Source, SourcePage>>, offsets: Offsets, limit: number): { items: Activity[]; offsets: Offsets; more: boolean } {
  const heads = Object.fromEntries(SOURCES.map((s) => [s, 0])) as Record<Source, number>;
  const items: Activity[] = [];
  while (items.length < limit) {
    let pick: Source | null = null;
    for (const source of SOURCES) {
      const item = pages[source]?.items[heads[source]];
      if (!item) continue;
      if (pick === null || Date.parse(item.at) > Date.parse(pages[pick]!.items[heads[pick]]!.at)) pick = source;
    }
    if (pick === null) break;
    items.push(pages[pick]!.items[heads[pick]]!);
    heads[pick] += 1;
  }
  const next = { ...offsets };
  let more = false;
  for (const source of SOURCES) {
    const page = pages[source];
    if (!page) continue;
    next[source] += heads[source];
    if (page.more || heads[source] < page.items.length) more = true;
  }
  return { items, offsets: next, more };
}
