/**
 * The rows of bench/peer.ts: the same deterministic values seeded into the runtime's peer_item
 * table (through the engine's codec, as seed.ts does) and into the peer's table of the same name
 * (plain columns), then the same single-column indexes on status, priority and due_date on the
 * peer (the runtime's come from the object's `indexed` fields), and statistics on both.
 */
import { randomUUID } from 'node:crypto';
import Sqlite from 'better-sqlite3';
import pg from 'pg';
import { loadApps } from '../metadata/loadApps.ts';
import { recordToRow } from '../plugins/data/sql/codec.ts';
import { quoteIdent } from '../plugins/data/sql/dialect.ts';
import { newId } from '../plugins/data/sql/newId.ts';
import { openDatabase } from '../plugins/data/sql/openDatabase.ts';
import { syncSchema } from '../plugins/data/sql/syncSchema.ts';
import { BENCH_APP_DIR } from './benchObject.ts';
import type { DatabaseTarget } from './databaseTarget.ts';

export const PEER_OBJECT = 'peer_item';
export const PEER_STATUSES = ['open', 'in_progress', 'done', 'cancelled'] as const;
export const PEER_INDEXED = ['status', 'priority', 'due_date'] as const;
const BATCH = 1000;

/** The API values of the i-th row: 4 statuses, priorities 1 to 5, due dates over two years. */
export function peerValues(i: number): Record<string, unknown> {
  const due = new Date(Date.UTC(2025, 0, 1) + ((i * 7919) % 730) * 86_400_000).toISOString().slice(0, 10);
  return {
    title: `item-${String(i).padStart(6, '0')}`,
    status: PEER_STATUSES[i % 4],
    priority: 1 + ((i * 31) % 5),
    due_date: due,
    amount: Math.round(((i * 7907) % 1_000_000)) / 100,
    notes: `Seeded record ${i}: a short note so rows have a realistic width.`,
  };
}

export function peerCreateBody(n: number): Record<string, unknown> {
  return { title: `created-${n}`, status: 'open', priority: 3, due_date: '2025-06-30', amount: 1234.5, notes: 'Created under load.' };
}

/** Where rows go: a SQLite file, or a PostgreSQL connection (with a schema for the runtime's side). */
export interface SeedTarget {
  driver: 'sqlite' | 'postgres';
  file?: string;
  url?: string;
  schema?: string | null;
}

async function insertAll(target: SeedTarget, count: number, row: (i: number) => Record<string, unknown>, after: string[]): Promise<void> {
  if (target.driver === 'sqlite') {
    const db = new Sqlite(target.file!);
    try {
      db.pragma('busy_timeout = 10000');
      let insert: Sqlite.Statement | null = null;
      let columns: string[] = [];
      for (let start = 0; start < count; start += BATCH) {
        db.transaction(() => {
          for (let i = start; i < Math.min(count, start + BATCH); i++) {
            const r = row(i);
            if (!insert) {
              columns = Object.keys(r);
              insert = db.prepare(`insert into ${quoteIdent(PEER_OBJECT)} (${columns.map(quoteIdent).join(', ')}) values (${columns.map(() => '?').join(', ')})`);
            }
            insert.run(columns.map((c) => r[c]));
          }
        })();
      }
      for (const sql of after) db.exec(sql);
      db.exec('analyze');
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: target.url });
  await client.connect();
  try {
    if (target.schema) await client.query(`set search_path to ${quoteIdent(target.schema)}`);
    for (let start = 0; start < count; start += BATCH) {
      const rows = Array.from({ length: Math.min(count, start + BATCH) - start }, (_, k) => row(start + k));
      const columns = Object.keys(rows[0]!);
      const values: unknown[] = [];
      const tuples = rows.map((r) => `(${columns.map((c) => `$${values.push(r[c])}`).join(', ')})`);
      await client.query(`insert into ${quoteIdent(PEER_OBJECT)} (${columns.map(quoteIdent).join(', ')}) values ${tuples.join(', ')}`, values);
    }
    for (const sql of after) await client.query(sql);
    // As seed.ts: the state autovacuum keeps a served table in.
    await client.query(`vacuum (analyze) ${quoteIdent(PEER_OBJECT)}`);
  } finally {
    await client.end();
  }
}

/** The runtime's table through its own schema sync, then the rows; answers the ids. */
export async function seedRuntime(target: DatabaseTarget, count: number): Promise<string[]> {
  const { objects, errors } = await loadApps([BENCH_APP_DIR]);
  if (errors.length > 0) throw new Error(errors.map((e) => e.message).join('\n'));
  const object = objects.get(PEER_OBJECT)!;
  const db = await openDatabase({ url: target.url, ...(target.schema ? { schema: target.schema } : {}) });
  try {
    await syncSchema(db.knex, [object]);
  } finally {
    await db.close();
  }
  const ids: string[] = [];
  const base = Date.UTC(2025, 0, 1);
  await insertAll({ driver: target.driver, file: target.file ?? undefined, url: target.url, schema: target.schema }, count, (i) => {
    const id = newId();
    ids.push(id);
    const at = new Date(base + i * 1000).toISOString();
    return recordToRow(object, { ...peerValues(i), id, version: 1, created_at: at, updated_at: at, created_by: null, updated_by: null, owner_id: null }, target.driver);
  }, []);
  return ids;
}

/** The peer's table (created through its own API beforehand), then the rows and the indexes; answers the ids. */
export async function seedPeer(target: SeedTarget, count: number): Promise<string[]> {
  const ids: string[] = [];
  const indexes = PEER_INDEXED.map((column) => `create index ${quoteIdent(`peer_item_${column}_index`)} on ${quoteIdent(PEER_OBJECT)} (${quoteIdent(column)})`);
  await insertAll(target, count, (i) => {
    const id = randomUUID();
    ids.push(id);
    return { id, ...peerValues(i) };
  }, indexes);
  return ids;
}
