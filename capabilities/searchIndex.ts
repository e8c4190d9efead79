import type { DataContext, DataRecord } from './dataEngine.ts';
import { defineCapability } from './defineCapability.ts';

export interface SearchRequest {
  /** The user's text; tokenized by the index, never read as query syntax. */
  q: string;
  /** Objects to search; unset: every object with searchable fields. */
  objects?: readonly string[];
  /** Hits wanted (default 20, at most 100). */
  limit?: number;
}

export interface SearchHit {
  object: string;
  id: string;
  /** Relevance, higher first; comparable within one answer only. */
  score: number;
  /** The record as the caller may read it, fetched through the data engine. */
  record: DataRecord;
}

export interface SearchIndex {
  /** Ranked hits among the records the caller may read. */
  search(request: SearchRequest, ctx: DataContext): Promise<{ items: SearchHit[] }>;
  /** Objects that have searchable fields, so an index. */
  objects(): string[];
  /** Rebuild an object's index (every indexed object when unset) in an environment; answers documents written. */
  rebuild(environmentId: string, object?: string): Promise<number>;
}

export const searchIndex = defineCapability<SearchIndex>()({
  id: 'search.index',
  cardinality: 'single',
  description: 'Full-text search over searchable fields, ranked by per-object field weights; hits are read through the data engine.',
});
