import { z } from 'zod';
import { DEFAULT_PAGE_CACHE_MB } from './query/countCache.ts';
import { DEFAULT_QUERY_COST } from './query/queryCost.ts';
import { DEFAULT_POOLED_READ_MS } from './query/readPool.ts';

export const dataOptionsSchema = z.strictObject({
  /**
   * Schema sync at start: `additive` creates tables, columns and indexes and refuses changes that
   * lose data; `destructive` also drops columns and changes types; `off` leaves the database alone.
   */
  schemaSync: z.enum(['additive', 'destructive', 'off']).default('additive'),
  /**
   * How long one statement of a query may run, in ms: PostgreSQL's statement_timeout on every
   * connection; on SQLite, the budget of queries whose joins multiply rows (queryCost.ts). Past
   * it a read answers 400 QUERY_TOO_COSTLY. Keep it under server.requestTimeoutMs.
   */
  queryTimeoutMs: z.number().int().min(100).max(600_000).default(DEFAULT_QUERY_COST.timeoutMs),
  /**
   * SQLite file: worker threads reading the database beside the main thread (readPool.ts), each
   * with a read-only connection, started on the first read sent to them; 0 runs every read on the
   * main thread (queries whose joins multiply rows then run there too, under the time budget).
   * Default: the number of cores, at least 1 and at most 4. In-memory databases have none.
   */
  readers: z.number().int().min(0).max(16).optional(),
  /**
   * SQLite: a list or query read of a shape whose last two runs took at least this many ms goes to the
   * read workers next time (aggregations and distinct reads always do; by-id reads never).
   */
  pooledReadMs: z.number().min(0).max(600_000).default(DEFAULT_POOLED_READ_MS),
  /**
   * Totals of list reads remembered until the next write (`on`): on SQLite always, on PostgreSQL
   * while the runtime listens for other processes' writes (NOTIFY, sent with each write's commit).
   * `off` counts on every read: for tables that programs other than the runtime write to.
   */
  countCache: z.enum(['on', 'off']).default('on'),
  /**
   * With countCache on: the rows of planned list queries' first pages, of aggregations and
   * distinct reads, and on PostgreSQL of plain reads by id, remembered until the next write to a
   * table they read, in at most this many MB per process (least recently used out first; a page
   * of plain columns also keeps its decoded records beside its rows, up to about as much again;
   * reads by id in half of this of their own, beside it). 0 reads every page. With countCache
   * `off`, no page is remembered either.
   */
  pageCacheMb: z.number().min(0).max(1024).default(DEFAULT_PAGE_CACHE_MB),
  /** Joins one query may hold (at most 8); more answers 400 QUERY_TOO_COSTLY. */
  maxJoins: z.number().int().min(0).max(8).default(DEFAULT_QUERY_COST.maxJoins),
  /**
   * A list or query read that takes at least this many ms has its shape (filter fields by kind,
   * sort) recorded for index advice (GET /metrics/index-advice, docs/data-api.md); 0 records every read.
   */
  slowQueryMs: z.number().int().min(0).max(600_000).default(50),
  /** Build the advised indexes of slow reads automatically (logged; PostgreSQL: concurrently). Off by default. */
  autoIndex: z.boolean().default(false),
  /** Automatic (`osr_auto_`) indexes one object may hold. */
  autoIndexMax: z.number().int().min(1).max(20).default(3),
  /**
   * An automatic index no read used for this many days is dropped again (checked at start and by
   * the `data.autoIndexSweep` job when jobs are on). Only indexes autoIndex built and recorded.
   */
  autoIndexUnusedDays: z.number().int().min(1).max(3650).default(7),
});

export type DataOptions = z.output<typeof dataOptionsSchema>;
