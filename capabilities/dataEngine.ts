import type { FastifyRequest } from 'fastify';
import type { Principal } from './authSession.ts';
import { defineCapability } from './defineCapability.ts';

/** Who asks and how: every engine call carries it, so security applies on every path. */
export interface DataContext {
  /** The environment whose database is read and written. */
  environmentId: string;
  principal: Principal | null;
  /** Engine-internal work (schema sync, system jobs): bypasses user-level checks. Never set from a request. */
  system?: boolean;
  /**
   * Engine work (`system`) done for a caller: the lookups it sets may name only records this
   * identity may read, exactly as in that caller's own write (a hidden record answers like a
   * missing one); `null`: an anonymous caller, who may name none. Unset: any existing record.
   */
  lookupReader?: Principal | null;
  /** Read-only fields this call may write: server logic (e.g. lead conversion) setting fields users cannot. Security still applies. */
  trustedFields?: readonly string[];
  requestId?: string;
  /** The HTTP client behind the call (its address and user agent), for the audit trail; unset for engine work. */
  client?: { ip: string | null; userAgent: string | null };
  /** Aborted when the request's client goes away: a costly read in flight is cancelled (docs/data-api.md, Query cost). */
  signal?: AbortSignal;
  /**
   * The read-your-writes token the caller presented (`X-OSR-Write-Token`, docs/data-api.md): the
   * read is not answered from anything remembered before that write, wherever it was made.
   */
  writeToken?: string;
  /** The caller as hooks and actions see it; filled by the engine from the principal. */
  user?: { id: string; organizationId: string | null; positions: string[] } | null;
  session?: { organizationId: string | null } | null;
}

export type DataRecord = Record<string, unknown>;

export interface ListResult {
  items: DataRecord[];
  total?: number;
  /** `total` is an estimate (`total: 'estimated'`): the planner's, or at least this many on SQLite. */
  totalEstimated?: true;
  /** `total` is the cap (`total: 'capped'`): at least this many match, not counted further. */
  totalCapped?: true;
  nextCursor?: string | null;
}

export interface GetOptions {
  select?: string[];
  expand?: string[];
  /** `false`: run no find hooks, as QueryOptions.findHooks (honoured in a system context only). */
  findHooks?: boolean;
}

export interface QueryOptions {
  /**
   * Count the matching rows (default true). `'estimated'`: exact while the matches are few (at most
   * 10,000), else PostgreSQL's planner estimate, or on SQLite 10,000 meaning "at least"; the answer
   * then says `totalEstimated: true` (docs/data-api.md, Counting). `'capped'`: exact up to 10,000
   * matches (COUNT_CAP), else 10,000 with `totalCapped: true`: a bounded cost on both drivers.
   */
  total?: boolean | 'estimated' | 'capped';
  /**
   * `false`: run no beforeFind/afterFind hooks (default true). Honoured in a system context only:
   * a plugin's own bookkeeping read (a side index read back inside a write) is not a caller's read.
   */
  findHooks?: boolean;
}

/** Paging of the history and trash listings. */
export interface PageQuery {
  limit?: number;
  offset?: number;
  cursor?: string;
}

export interface WriteOptions {
  /** Optimistic concurrency: the version the caller last read. */
  expectedVersion?: number;
}

/** What an upsert did: `created` true when it made the record, false when it updated the one holding the key. */
export interface UpsertResult {
  created: boolean;
  record: DataRecord;
}

/** What createMany did with one input: the record create answers, or the coded error create throws. */
export type CreateOutcome = { record: DataRecord; error?: undefined } | { error: unknown; record?: undefined };

export interface CreateManyOptions {
  /**
   * The caller needs only each created record's id (an import): a record of the outcomes may then
   * hold `id` alone, and the engine skips answering the stored rows where nothing else needs them.
   * Every check, hook and refusal is the same.
   */
  idsOnly?: boolean;
}

export interface DataEngine {
  /** The structured query of the interface (where, orderBy, limit, offset, cursor, expand, joins, groupBy, aggregations...). */
  query(object: string, query: Record<string, unknown>, ctx: DataContext, options?: QueryOptions): Promise<ListResult>;
  get(object: string, id: string, options: GetOptions, ctx: DataContext): Promise<DataRecord>;
  /**
   * The record `get` would answer for a plain read by id (no select or expand), when the engine can
   * answer it without waiting (for example a read it has planned for this caller on a SQLite file);
   * undefined when it cannot, and also when no record is found: then call `get`, which waits and
   * answers NOT_FOUND. Security applies as in `get` (a refusal is thrown). An engine may always
   * answer undefined.
   */
  getNow(object: string, id: string, ctx: DataContext): DataRecord | undefined;
  /**
   * Whether `record`, as a system read of the object shows it now, is certainly outside what `ctx`
   * may read of the object (its row scope and any contributed scope) or outside `where` (the
   * structured query's where): true only where the record's own values rule it out; false where it
   * may be readable or they cannot tell (a joined field, a date, text matching, a beforeFind hook on
   * the object). A reason to skip reading it as `ctx`, never a reason to show it. Refusals are
   * thrown as a read's would be.
   */
  outside(object: string, record: DataRecord, where: unknown, ctx: DataContext): Promise<boolean>;
  create(object: string, input: DataRecord, ctx: DataContext): Promise<DataRecord>;
  /**
   * Creates each input as `create` would (checks, hooks, security), in one transaction, and answers
   * each one's outcome in order: a failed input undoes only itself. A fault that is not a coded
   * request error rejects the whole call. Written together (one insert per batch) when the object's
   * insert hooks allow it (`batched`, docs/plugins.md), else one by one.
   */
  createMany(object: string, inputs: readonly DataRecord[], ctx: DataContext, options?: CreateManyOptions): Promise<CreateOutcome[]>;
  /**
   * Does now, outside any transaction, what of a later `createMany` of these same input objects
   * for the same caller needs no database (coercion, size bounds, the after-insert handlers'
   * `prepare`, such as the search words, and the history entries' text): a caller that opens a long
   * transaction of its own (an import) calls it first, so the transaction is held only for the
   * writes. createMany does it itself before opening its own transaction. Optional to call.
   */
  prepareMany(object: string, inputs: readonly DataRecord[], ctx: DataContext): void;
  update(object: string, id: string, patch: DataRecord, options: WriteOptions, ctx: DataContext): Promise<DataRecord>;
  delete(object: string, id: string, options: WriteOptions, ctx: DataContext): Promise<void>;
  /** A record's history entries, newest first (objects with enable.trackHistory); the caller must be able to read the record. */
  history(object: string, id: string, page: PageQuery, ctx: DataContext): Promise<ListResult>;
  /** Records in the object's trash: those the caller deleted (admins and modifyAll holders: all). */
  trash(object: string, page: PageQuery, ctx: DataContext): Promise<ListResult>;
  /** Brings a trashed record back, its version bumped. */
  restore(object: string, id: string, ctx: DataContext): Promise<DataRecord>;
  /** Removes a trashed record for good (admins and modifyAll holders). */
  purge(object: string, id: string, ctx: DataContext): Promise<void>;
  /**
   * Create the record whose unique field `on` holds `values[on]`, or update the record that holds it
   * (as `update` would: row security, `expectedVersion`), atomically: concurrent upserts of one key
   * make one record. `on` must be a field declared unique, with a value in `values`.
   */
  upsert(object: string, on: string, values: DataRecord, options: WriteOptions, ctx: DataContext): Promise<UpsertResult>;
  /** Run several calls atomically: all of them happen or none. */
  transaction<T>(ctx: DataContext, work: (engine: DataEngine) => Promise<T>): Promise<T>;
}

export const dataEngine = defineCapability<DataEngine>()({
  id: 'data.engine',
  cardinality: 'single',
  description: 'Read and write records through the secured pipeline: validation, hooks, security, drivers. Raw SQL is not part of it (see data.database).',
});

/** The caller of an HTTP request as the engine sees it (environment, principal, request id, and the signal when given). */
export function dataContextOf(request: FastifyRequest, signal?: AbortSignal): DataContext {
  const client = clientOf(request);
  const ctx: DataContext = { environmentId: request.environmentId, principal: request.principal, requestId: request.id, client };
  if (signal !== undefined) ctx.signal = signal;
  const token = request.headers[WRITE_TOKEN_HEADER];
  if (typeof token === 'string') ctx.writeToken = token;
  return ctx;
}

/** The request's client address and user agent (DataContext.client). */
export function clientOf(request: FastifyRequest): { ip: string | null; userAgent: string | null } {
  const agent = request.headers['user-agent'];
  return { ip: request.ip ?? null, userAgent: typeof agent === 'string' ? agent.slice(0, 500) : null };
}

/** The header of read-your-writes tokens: on a write's answer, and on a later read that must see it (docs/data-api.md). */
export const WRITE_TOKEN_HEADER = 'x-osr-write-token';
