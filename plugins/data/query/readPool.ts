import { availableParallelism } from 'node:os';
import type { QueryAst } from './types.ts';

/**
 * Which SQLite reads run in the read workers (sqliteReadWorkers.ts) rather than on the main
 * thread. A worker costs a round trip (a message each way and a structured clone of the rows:
 * 0.02 to 0.04 ms, bench/readPool.ts), more than a by-id read costs in full and about half of an
 * indexed page; a read that scans pays it back many times, and no longer holds the event loop.
 *
 * Pooled: aggregations and distinct reads (they read every matching row to answer a few), and
 * any other list or query whose last two runs of the same shape (cursor.ts costShape: its filter
 * values aside) took `pooledReadMs` or more (a
 * filter on an unindexed field, a count the count cache does not hold). Never pooled: by-id
 * reads, and reads inside a transaction (they must see its writes; the workers' connections
 * see what was committed).
 */
export interface ReadPoolPolicy {
  /** Whether a read of this AST and shape key goes to the workers. */
  pooled(ast: QueryAst, key: string): boolean;
  /**
   * Records the time (ms) the read of a shape key took where it ran: on the main thread its whole
   * run, in the workers its statements' own time (not the wait for a free worker, which under load
   * would keep every pooled shape pooled).
   */
  ran(key: string, ms: number): void;
}

/** Shapes remembered as slow, at most; least recently slow out. */
const MAX_SLOW_SHAPES = 512;

/** plugins.data.pooledReadMs by default: many times the worker's round trip (0.02-0.04 ms, bench/readPool.ts), a scan of about 50,000 rows. */
export const DEFAULT_POOLED_READ_MS = 1;

/** Slow runs in a row that send a shape to the pool: one slow run may be the machine's, not the read's (a thread preempted mid-read). */
const SLOW_RUNS = 2;

export function createReadPoolPolicy(pooledReadMs: number): ReadPoolPolicy {
  /** Slow runs in a row of each shape; least recently slow first. */
  const slow = new Map<string, number>();
  return {
    pooled(ast, key) {
      return ast.aggregate || ast.distinct || (slow.get(key) ?? 0) >= SLOW_RUNS;
    },
    ran(key, ms) {
      const runs = slow.get(key) ?? 0;
      slow.delete(key);
      // Quick where it ran: back to the main thread.
      if (ms < pooledReadMs) return;
      slow.set(key, Math.min(SLOW_RUNS, runs + 1));
      if (slow.size > MAX_SLOW_SHAPES) slow.delete(slow.keys().next().value!);
    },
  };
}

/**
 * plugins.data.readers when not set: one worker per core beside the main thread's, at least one
 * and at most four (bench/README.md, Read workers: on two cores, two workers answered aggregations
 * faster than one, the main thread keeping HTTP and quick reads).
 */
export function defaultReaders(cores = availableParallelism()): number {
  return Math.min(4, Math.max(1, cores));
}
