import { defineCapability } from './defineCapability.ts';

/** One composite index the runtime advises, from the slow query shapes it saw (docs/data-api.md, Index advice). */
export interface IndexAdvice {
  object: string;
  /** Columns in index order: equality columns, then sort columns in sort order, then range columns. */
  columns: string[];
  /** The statement that builds it on the environment's database. */
  sql: string;
  /** The slow shapes it serves: equality, range and sort columns. */
  shapes: Array<{ equality: string[]; range: string[]; sort: string[] }>;
  /** Slow runs of those shapes since start, their total and slowest time in ms, and the last one (ISO). */
  runs: number;
  totalMs: number;
  maxMs: number;
  lastAt: string;
}

export interface DataIndexAdvice {
  /** The recorder's threshold (`plugins.data.slowQueryMs`). */
  readonly slowQueryMs: number;
  /** Advised indexes of an environment, most time saved first; shapes an existing index serves are left out. */
  advice(environmentId: string): Promise<IndexAdvice[]>;
  /** Whether `plugins.data.autoIndex` builds advised indexes (and drops them again when unused). */
  readonly autoIndex: boolean;
  /**
   * Drops the environment's automatic indexes unused for `plugins.data.autoIndexUnusedDays` and
   * answers their names and those kept; nothing when autoIndex is off.
   */
  sweepUnused(environmentId: string): Promise<{ dropped: string[]; kept: string[] }>;
}

export const dataIndexAdvice = defineCapability<DataIndexAdvice>()({
  id: 'data.indexAdvice',
  cardinality: 'single',
  description: 'Composite indexes that would serve the slow query shapes the data engine recorded.',
});
