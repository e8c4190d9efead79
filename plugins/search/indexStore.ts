import type { Knex } from 'knex';
import type { SearchDocument } from './searchPlan.ts';
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
  objects: readonly string[];
  limit: number;
  offset: number;
}

/**
 * One driver's full-text index. Every method runs on the knex it is given: the write's
 * transaction in the data hooks, so the index commits or rolls back with the record.
 */
export interface IndexStore {
  /** Create the index tables when missing. */
  ensure(knex: Knex): Promise<void>;
  write(knex: Knex, object: string, id: string, document: SearchDocument): Promise<void>;
  /** Index records the index does not hold yet (a rebuild after clear), a few statements per batch. */
  writeNew(knex: Knex, object: string, entries: ReadonlyArray<{ id: string; document: SearchDocument }>): Promise<void>;
  remove(knex: Knex, object: string, id: string): Promise<void>;
  /** Drop every document of an object. */
  clear(knex: Knex, object: string): Promise<void>;
  count(knex: Knex, object: string): Promise<number>;
  /** Matching records, best first (ties by id), every term matching. */
  candidates(knex: Knex, query: CandidateQuery): Promise<Candidate[]>;
}

/** Rows of a raw query on either driver. */
export function rowsOf<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}
