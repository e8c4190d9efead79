import Sqlite from 'better-sqlite3';
import pg from 'pg';
import { loadApps } from '../metadata/loadApps.ts';
import type { ResolvedObject } from '../metadata/types.ts';
import { ensureSequenceTable } from '../plugins/data/engine/nextSequence.ts';
import { recordToRow } from '../plugins/data/sql/codec.ts';
import { quoteIdent } from '../plugins/data/sql/dialect.ts';
import { newId } from '../plugins/data/sql/newId.ts';
import { openDatabase } from '../plugins/data/sql/openDatabase.ts';
import { syncSchema } from '../plugins/data/sql/syncSchema.ts';
import { BENCH_APP_DIR, BENCH_OBJECT, benchValues, randomSource } from './benchObject.ts';
import type { DatabaseTarget } from './databaseTarget.ts';

const BATCH = 1000;

export interface SeedResult {
  /** Every seeded id, in insertion order. */
  ids: string[];
  seconds: number;
}

export async function loadBenchObject(): Promise<ResolvedObject> {
  const { objects, errors } = await loadApps([BENCH_APP_DIR]);
  if (errors.length > 0) throw new Error(errors.map((e) => e.message).join('\n'));
  return objects.get(BENCH_OBJECT)!;
}

/**
 * Creates the table with the runtime's own schema sync, then inserts `count` rows straight into
 * it in batches, encoded by the engine's codec so the rows are what the engine itself would store.
 */
export async function seed(target: DatabaseTarget, count: number, log: (line: string) => void): Promise<SeedResult> {
  const started = performance.now();
  const object = await loadBenchObject();
  const db = await openDatabase({ url: target.url, ...(target.schema ? { schema: target.schema } : {}) });
  try {
    await syncSchema(db.knex, [object]);
    await ensureSequenceTable(db.knex);
  } finally {
    await db.close();
  }

  const random = randomSource(42);
  const base = Date.UTC(2025, 0, 1);
  const ids: string[] = [];
  const batches = function* (): Generator<Record<string, unknown>[]> {
    for (let start = 0; start < count; start += BATCH) {
      const rows: Record<string, unknown>[] = [];
      for (let i = start; i < Math.min(count, start + BATCH); i++) {
        const id = newId();
        ids.push(id);
        const at = new Date(base + i * 1000).toISOString();
        const record = { ...benchValues(i, random), id, version: 1, created_at: at, updated_at: at, created_by: null, updated_by: null, owner_id: null };
        rows.push(recordToRow(object, record, target.driver));
      }
      yield rows;
    }
  };
  const progress = (done: number) => {
    if (done % Math.max(BATCH, Math.floor(count / 10 / BATCH) * BATCH) === 0 || done === count) log(`  seeded ${done}/${count}`);
  };
  if (target.driver === 'sqlite') seedSqlite(target.file!, batches(), progress);
  else await seedPostgres(target, batches(), progress);
  return { ids, seconds: (performance.now() - started) / 1000 };
}

function seedSqlite(file: string, batches: Iterable<Record<string, unknown>[]>, progress: (done: number) => void): void {
  const db = new Sqlite(file);
  try {
    db.pragma('journal_mode = WAL');
    let insert: Sqlite.Statement | null = null;
    let done = 0;
    for (const rows of batches) {
      const columns = Object.keys(rows[0]!);
      insert ??= db.prepare(`insert into ${quoteIdent(BENCH_OBJECT)} (${columns.map(quoteIdent).join(', ')}) values (${columns.map(() => '?').join(', ')})`);
      const statement = insert;
      db.transaction(() => {
        for (const row of rows) statement.run(columns.map((c) => row[c]));
      })();
      done += rows.length;
      progress(done);
    }
  } finally {
    db.close();
  }
}

async function seedPostgres(target: DatabaseTarget, batches: Iterable<Record<string, unknown>[]>, progress: (done: number) => void): Promise<void> {
  const client = new pg.Client({ connectionString: target.url });
  await client.connect();
  try {
    if (target.schema) await client.query(`set search_path to ${quoteIdent(target.schema)}`);
    let done = 0;
    for (const rows of batches) {
      const columns = Object.keys(rows[0]!);
      const values: unknown[] = [];
      const tuples = rows.map((row) => `(${columns.map((c) => `$${values.push(row[c])}`).join(', ')})`);
      await client.query(`insert into ${quoteIdent(BENCH_OBJECT)} (${columns.map(quoteIdent).join(', ')}) values ${tuples.join(', ')}`, values);
      done += rows.length;
      progress(done);
    }
    // Vacuumed as well as analyzed: a bulk-loaded table has no visibility map until autovacuum
    // reaches it, which it does at some point during the run, changing what every count costs
    // (index-only scans, heap pages skipped) halfway through. A served table is in that state.
    await client.query(`vacuum (analyze) ${quoteIdent(BENCH_OBJECT)}`);
  } finally {
    await client.end();
  }
}
