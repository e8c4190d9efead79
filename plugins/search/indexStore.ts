import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { FieldWords, IndexedField, SearchDocument } from './searchPlan.ts';
import type { QueryTerms } from './tokenize.ts';

/** The relative weight of each class (1 to 4) in scores, the same on both drivers. */
export const CLASS_WEIGHTS = [0.25, 0.5, 0.75, 1] as const;

export interface Candidate {
  object: string;
  id: string;
  score: number;
}

export interface CandidateQuery {
  terms: QueryTerms;
  /**
   * Per object, the searchable fields the caller may read: only their entries match and count in
   * scores. An object absent from the map, or with no fields, is not searched.
   */
  fields: ReadonlyMap<string, readonly IndexedField[]>;
  limit: number;
  offset: number;
}

/** The digest of one entry as the index holds it (see IndexStore.digests). */
export interface EntryDigest {
  field: string;
  digest: string;
}

/**
 * One driver's full-text index: an entry per searchable field of a record. Every method runs on
 * the knex it is given: the write's transaction in the data hooks, so the index commits or rolls
 * back with the record.
 */
export interface IndexStore {
  /** Create the index tables when missing (and drop those of the one-document-per-record format). */
  ensure(knex: Knex): Promise<void>;
  /** Replace every entry of a record. */
  write(knex: Knex, object: string, id: string, document: SearchDocument): Promise<void>;
  /** Index records the index does not hold yet (a rebuild after clear), a few statements per batch. */
  writeNew(knex: Knex, object: string, entries: ReadonlyArray<{ id: string; document: SearchDocument }>): Promise<void>;
  /** Drop every entry of these records, or only those of `fields`. */
  remove(knex: Knex, object: string, ids: readonly string[], fields?: readonly string[]): Promise<void>;
  /** Drop every entry of an object. */
  clear(knex: Knex, object: string): Promise<void>;
  /** Records that have at least one entry. */
  count(knex: Knex, object: string): Promise<number>;
  /** Per record id (of `ids`), the md5 of the text each entry holds, read from the index itself. */
  digests(knex: Knex, object: string, ids: readonly string[]): Promise<Map<string, EntryDigest[]>>;
  /** The text the index holds for an entry of these words, as `digests` hashes it. */
  storedText(entry: FieldWords): string;
  /** Ids of records with entries, above `after` in the store's order, at most `limit`, ascending. */
  recordIds(knex: Knex, object: string, after: string | null, limit: number): Promise<string[]>;
  /**
   * Check that the driver's own inverted index agrees with the text it was built from, and
   * rebuild it from that text when it does not; answers what was wrong, null when nothing was.
   */
  verify(knex: Knex): Promise<string | null>;
  /** Hold these records' entries until the transaction ends, so a repair does not race a write. */
  lock(knex: Knex, object: string, ids: readonly string[]): Promise<void>;
  /** Matching records, best first (ties by id), every term matching in a readable field. */
  candidates(knex: Knex, query: CandidateQuery): Promise<Candidate[]>;
}

/** Rows of a raw query on either driver. */
export function rowsOf<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

/** `(object, field)` pairs of a query, the readable entries. */
export function readablePairs(fields: CandidateQuery['fields']): Array<{ object: string; field: IndexedField }> {
  const pairs: Array<{ object: string; field: IndexedField }> = [];
  for (const [object, list] of fields) for (const field of list) pairs.push({ object, field });
  return pairs;
}

/** The digest entries are compared by (PostgreSQL computes the same with md5(document::text)). */
export function md5(text: string): string {
  return createHash('md5').update(text).digest('hex');
}
