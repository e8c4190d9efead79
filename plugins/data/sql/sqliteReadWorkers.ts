import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Knex } from 'knex';
import { BUDGET_EXCEEDED } from '../query/queryCost.ts';
import { SQLITE_BUDGET, SQLITE_LOWER } from './dialect.ts';
import { SQLITE_PAGE_CACHE_KB } from './sqlitePageCacheKb.ts';

type Rows = Array<Record<string, unknown>>;

/** A select in SQLite's form (`?` placeholders), its bindings already in the driver's types. */
export interface WorkerStatement {
  sql: string;
  bindings: readonly unknown[];
  /**
   * Adds the time the worker spent running the statement (ms, its own clock: neither the wait in
   * the queue nor the round trip), so that the pool's policy judges a read by its own cost.
   */
  timing?: { ms: number };
}

/**
 * Reads of one SQLite file run in worker threads, each with its own read-only connection, so a
 * long read never blocks the process (better-sqlite3 runs a statement to its end in the thread
 * that calls it), and reads of the file use every core. The engine sends the reads that cost
 * (readPool.ts: joins that multiply rows, aggregations, distinct rows, and shapes whose last runs
 * took plugins.data.pooledReadMs or more); by-id reads and quick pages stay on the main thread,
 * where a read costs less than the round trip to a worker (bench/README.md, Read workers).
 * Workers open the file read-only, in WAL mode: each statement sees what was committed before it
 * started; reads inside a transaction never come here (they must see its writes).
 *
 * - A worker starts on first use (a SQLite deployment that never sends such a query starts none).
 * - A job carries a deadline (epoch ms). The worker's connection binds it to `os_budget` in the
 *   statement (compileQuery.ts), which throws once it has passed: the statement stops within a
 *   row of the product. A job still unanswered a grace period after its deadline (a statement
 *   that spends its time outside the rows `os_budget` sees) is rejected, its worker terminated
 *   (its thread ends when SQLite returns) and replaced on the next job; a job waiting in the
 *   queue past its deadline is rejected without running.
 * - Rejections carry `code: OSR_QUERY_BUDGET`, which the engine answers as QUERY_TOO_COSTLY.
 * - While MAX_STUCK terminated threads have not ended, new jobs are refused (code
 *   OSR_READ_WORKERS_BUSY, answered 503) rather than start more threads.
 * - A job whose signal aborts (its client went away) leaves the queue, or has its worker
 *   terminated: the next call of `os_budget` in that thread fails, which ends the statement.
 */
export interface ReadWorkers {
  /**
   * Runs a select; `signal` aborted (the client went away) drops it from the queue, and once it
   * runs terminates its worker (`onAbort: 'terminate'`, for statements that test their deadline
   * in `os_budget`) or rejects at once and lets the statement finish (`'finish'`: a read without
   * that test, bounded by its deadline, where a new thread would cost more than the rest of it).
   */
  read(statement: WorkerStatement, deadline: number, signal?: AbortSignal, onAbort?: 'terminate' | 'finish'): Promise<Rows>;
  /** Workers running, jobs running or queued, and workers terminated whose thread has not ended yet. */
  stats(): { workers: number; busy: number; queued: number; stuck: number };
  close(): Promise<void>;
}

/** Time a worker has past a job's deadline to answer before it is terminated. */
const GRACE_MS = 1000;
/** Terminated workers whose thread still runs, past which jobs are refused (WORKERS_BUSY) rather than start more threads. */
const MAX_STUCK = 4;
/** The code of that refusal; the engine answers it as SERVICE_UNAVAILABLE (connectionError.ts). */
export const WORKERS_BUSY = 'OSR_READ_WORKERS_BUSY';

interface Job {
  statement: WorkerStatement;
  deadline: number;
  signal: AbortSignal | undefined;
  resolve(rows: Rows): void;
  reject(error: Error): void;
}

interface Slot {
  worker: Worker;
  job: Job | null;
  timer: NodeJS.Timeout | null;
  /** Terminated past a deadline; counted in `stuck` until its thread ends. */
  stuck: boolean;
}

/**
 * The worker's code, run with `eval` so that it needs no loader (the runtime may run from its
 * TypeScript sources or from dist/). It sets up its connection as openDatabase does a reader's:
 * Unicode lower(), the budget function, query_only.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Sqlite = require(workerData.driver);
const db = new Sqlite(workerData.filename, { readonly: true });
db.pragma('query_only = ON');
db.pragma('cache_size = -' + workerData.cacheKb);
db.pragma('busy_timeout = 5000');
db.function(workerData.lower, { deterministic: true }, (value) => (typeof value === 'string' ? value.toLowerCase() : value));
db.function(workerData.budget, { varargs: true }, (deadline) => {
  if (Date.now() > deadline) { const error = new Error(workerData.exceeded); error.code = workerData.exceeded; throw error; }
  return 1;
});
const statements = new Map();
parentPort.on('message', ({ sql, bindings }) => {
  const started = performance.now();
  try {
    let entry = statements.get(sql);
    if (!entry) {
      if (statements.size >= 64) statements.delete(statements.keys().next().value);
      const statement = db.prepare(sql).raw(true);
      statements.set(sql, (entry = { statement, columns: statement.columns().map((c) => c.name) }));
    }
    // Rows are gathered up to a size the worker's heap holds with room to spare: a result past it
    // is refused as over budget, never left to exhaust the heap (V8 may then end the process).
    const rows = [];
    let size = 0;
    for (const row of entry.statement.iterate(bindings)) {
      for (const value of row) size += typeof value === 'string' ? 16 + value.length * 2 : value && value.length !== undefined ? 16 + value.length : 16;
      if (size > workerData.maxBytes) { const error = new Error(workerData.exceeded); error.code = workerData.exceeded; error.tooLarge = true; throw error; }
      rows.push(row);
    }
    // A row of another width than the names known: the statement was re-prepared after a schema change.
    if (rows.length > 0 && rows[0].length !== entry.columns.length) entry.columns = entry.statement.columns().map((c) => c.name);
    parentPort.postMessage({ columns: entry.columns, rows, ms: performance.now() - started });
  } catch (error) {
    parentPort.postMessage({ error: { message: String(error && error.message), code: error && error.code } });
  }
});
`;

const require = createRequire(import.meta.url);

/** The size of a pool of read workers and the memory each may hold. */
export interface ReadWorkersOptions {
  /** Worker threads at most (each with its own connection), started as jobs need them. */
  size: number;
  /**
   * V8 old-generation limit of each worker, in MB. A result is gathered up to a quarter of it
   * (estimated from its values) and refused past that as over budget (QUERY_TOO_COSTLY), so a
   * huge result never reaches the limit; a worker that still does ends (its job rejected) and is
   * replaced on the next job.
   */
  heapMb?: number;
}

/** Old-generation limit of a worker by default: a page of the largest size is a few MB. */
export const WORKER_HEAP_MB = 64;

export function createReadWorkers(filename: string, options: ReadWorkersOptions = { size: 1 }): ReadWorkers {
  const size = Math.max(1, options.size);
  const driver = require.resolve('better-sqlite3');
  const slots: Slot[] = [];
  const queue: Job[] = [];
  let closed = false;
  let stuck = 0;

  const spawn = (): Slot => {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { driver, filename, cacheKb: SQLITE_PAGE_CACHE_KB, lower: SQLITE_LOWER, budget: SQLITE_BUDGET, exceeded: BUDGET_EXCEEDED, maxBytes: Math.floor(((options.heapMb ?? WORKER_HEAP_MB) * 1024 * 1024) / 4) },
      resourceLimits: { maxOldGenerationSizeMb: options.heapMb ?? WORKER_HEAP_MB },
    });
    // An idle worker does not keep the process alive.
    worker.unref();
    const slot: Slot = { worker, job: null, timer: null, stuck: false };
    worker.on('message', (message: { columns?: string[]; rows?: unknown[][]; ms?: number; error?: { message: string; code?: string } }) => {
      const job = finish(slot);
      if (!job) return;
      if (job.statement.timing && message.ms !== undefined) job.statement.timing.ms += message.ms;
      if (message.error) job.reject(Object.assign(new Error(message.error.message), message.error.code ? { code: message.error.code } : {}));
      else job.resolve(rowObjects(message.columns!, message.rows!));
      next();
    });
    const lost = (error: unknown) => {
      remove(slot);
      // What a worker throws at its top level may arrive as a plain object (structured clone).
      const cause = error as { message?: unknown; code?: unknown } | null;
      finish(slot)?.reject(error instanceof Error ? error : Object.assign(new Error(`the SQLite read worker failed: ${String(cause?.message ?? cause?.code ?? 'unknown error')}`), typeof cause?.code === 'string' ? { code: cause.code } : {}));
      next();
    };
    worker.on('error', lost);
    worker.on('exit', (code) => {
      if (slot.stuck) stuck -= 1;
      slot.stuck = false;
      lost(new Error(`the SQLite read worker exited (${code})`));
    });
    slots.push(slot);
    return slot;
  };

  const finish = (slot: Slot): Job | null => {
    const job = slot.job;
    if (slot.timer) clearTimeout(slot.timer);
    slot.job = null;
    slot.timer = null;
    if (job) slot.worker.unref();
    return job;
  };

  /** Terminates a busy worker and rejects its job; its thread is left to end, the pool goes on without it. */
  const stop = (slot: Slot, error: Error) => {
    remove(slot);
    const job = finish(slot);
    slot.stuck = true;
    stuck += 1;
    void slot.worker.terminate();
    job?.reject(error);
    next();
  };

  const remove = (slot: Slot) => {
    const i = slots.indexOf(slot);
    if (i !== -1) slots.splice(i, 1);
  };

  const next = () => {
    while (queue.length > 0 && !closed) {
      const job = queue[0]!;
      if (Date.now() > job.deadline) {
        queue.shift();
        job.reject(budgetExceeded());
        continue;
      }
      const slot = slots.find((s) => s.job === null) ?? (slots.length < size ? spawn() : null);
      if (!slot) return;
      queue.shift();
      slot.job = job;
      slot.worker.ref();
      // Past the deadline and the grace period, this worker is stuck in SQLite.
      slot.timer = setTimeout(() => stop(slot, budgetExceeded()), Math.max(0, job.deadline - Date.now()) + GRACE_MS);
      slot.worker.postMessage({ sql: job.statement.sql, bindings: job.statement.bindings });
    }
  };

  return {
    read(statement, deadline, signal, onAbort = 'terminate') {
      if (closed) return Promise.reject(new Error('the SQLite read workers are closed'));
      if (signal?.aborted) return Promise.reject(aborted());
      if (stuck >= MAX_STUCK) return Promise.reject(Object.assign(new Error(WORKERS_BUSY), { code: WORKERS_BUSY }));
      return new Promise<Rows>((resolve, reject) => {
        const job: Job = { statement, deadline, signal, resolve, reject };
        if (signal) {
          const abort = () => {
            const waiting = queue.indexOf(job);
            if (waiting !== -1) {
              queue.splice(waiting, 1);
              reject(aborted());
              return;
            }
            if (onAbort === 'finish') {
              reject(aborted());
              return;
            }
            const slot = slots.find((s) => s.job === job);
            if (slot) stop(slot, aborted());
          };
          signal.addEventListener('abort', abort, { once: true });
          const settle = () => signal.removeEventListener('abort', abort);
          job.resolve = (rows) => {
            settle();
            resolve(rows);
          };
          job.reject = (error) => {
            settle();
            reject(error);
          };
        }
        queue.push(job);
        next();
      });
    },
    stats: () => ({ workers: slots.length, busy: slots.filter((s) => s.job !== null).length, queued: queue.length, stuck }),
    async close() {
      closed = true;
      for (const job of queue.splice(0)) job.reject(new Error('the database is closing'));
      await Promise.all(slots.splice(0).map((slot) => {
        finish(slot)?.reject(new Error('the database is closing'));
        return slot.worker.terminate();
      }));
    },
  };
}

/**
 * Rows cross the thread boundary as arrays (a structured clone of arrays costs less than of
 * objects repeating every key) and become objects here, later columns of a name winning as in
 * better-sqlite3's own objects. Values are SQLite's: numbers, strings and null (the engine stores
 * booleans as 0/1, JSON as text and reads no integers as BigInt), decoded by the codec as the
 * direct reader's are.
 */
function rowObjects(columns: string[], raw: unknown[][]): Rows {
  const rows: Rows = new Array(raw.length);
  for (let r = 0; r < raw.length; r++) {
    const values = raw[r]!;
    const row: Record<string, unknown> = {};
    for (let c = 0; c < columns.length; c++) row[columns[c]!] = values[c];
    rows[r] = row;
  }
  return rows;
}

function aborted(): Error {
  return Object.assign(new Error('the request was closed'), { name: 'AbortError' });
}

function budgetExceeded(): Error {
  return Object.assign(new Error(BUDGET_EXCEEDED), { code: BUDGET_EXCEEDED });
}

const pools = new WeakMap<Knex, ReadWorkers>();

/** The read workers of a knex instance that openDatabase opened on a SQLite file; undefined otherwise. */
export function readWorkers(knex: Knex): ReadWorkers | undefined {
  return pools.get(knex);
}

/** Gives a knex instance on a SQLite file its read workers; returns the function that closes them. */
export function attachReadWorkers(knex: Knex, filename: string, options: ReadWorkersOptions = { size: 1 }): () => Promise<void> {
  const workers = createReadWorkers(filename, options);
  pools.set(knex, workers);
  return () => {
    pools.delete(knex);
    return workers.close();
  };
}
