import { READS_ONLY, type DataDatabase } from '../../capabilities/dataDatabase.ts';
import type { DataEngine, DataRecord, ListResult } from '../../capabilities/dataEngine.ts';
import { md5, type EntryDigest, type IndexStore } from './indexStore.ts';
import { readFull, systemContext } from './readFull.ts';
import { buildDocument, type IndexedObject } from './searchPlan.ts';
import { storeFor } from './storeFor.ts';

/** Ids of each kind kept for the log line; the counts are always whole. */
const LOGGED_IDS = 100;

export interface Drift {
  /** Records whose entries hold other words than the record has. */
  stale: number;
  /** Records with words and no entry at all. */
  missing: number;
  /** Records gone (or never there) that still had entries. */
  orphaned: number;
  /** The first ids of each kind. */
  ids: { stale: string[]; missing: string[]; orphaned: string[] };
}

/**
 * Compare what the index holds for every record of an object with what the record gives, in pages
 * of `indexed.pageSize` records, and rewrite the entries that differ: each record's entries are
 * hashed from the index itself (not from a stored checksum, which would agree with tampered text)
 * and from a system read of the record. Entries of records that no longer exist are removed; they
 * are looked for only when the index holds more records than should have entries.
 */
export async function repairDrift(engine: DataEngine, database: DataDatabase, indexed: IndexedObject, environmentId: string): Promise<Drift> {
  const drift: Drift = { stale: 0, missing: 0, orphaned: 0, ids: { stale: [], missing: [], orphaned: [] } };
  const note = (kind: 'stale' | 'missing' | 'orphaned', ids: readonly string[]) => {
    drift[kind] += ids.length;
    drift.ids[kind].push(...ids.slice(0, LOGGED_IDS - drift.ids[kind].length));
  };
  const ctx = systemContext(environmentId);
  const select = ['id', ...indexed.fields.map((f) => f.name)];
  const store = await database.withDatabase(environmentId, async (db) => storeFor(db), undefined, READS_ONLY);
  const read = (cursor: string | null) => engine.query(indexed.name, { select, orderBy: 'id', limit: indexed.pageSize, ...(cursor ? { cursor } : {}) }, ctx, { total: false });
  let expectedWithEntries = 0;
  let next: Promise<ListResult> | null = read(null);
  while (next) {
    const page: ListResult = await next;
    // The next page is read while this one is compared.
    next = page.nextCursor ? read(page.nextCursor) : null;
    // Awaited at the next turn; if this one fails first, its failure is not left unhandled.
    next?.catch(() => undefined);
    const ids = page.items.map((r) => String(r.id));
    const held = await database.withDatabase(environmentId, (db) => store.digests(db.knex, indexed.name, ids), undefined, READS_ONLY);
    const stale: string[] = [];
    const missing: string[] = [];
    for (const record of page.items) {
      const id = String(record.id);
      const expected = expectedDigests(store, indexed, record);
      if (expected.length > 0) expectedWithEntries++;
      const actual = held.get(id) ?? [];
      if (sameEntries(expected, actual)) continue;
      (actual.length === 0 ? missing : stale).push(id);
    }
    if (stale.length + missing.length > 0) await rewrite(engine, database, indexed, environmentId, [...stale, ...missing]);
    note('stale', stale);
    note('missing', missing);
  }

  const indexedRecords = await database.withDatabase(environmentId, (db) => store.count(db.knex, indexed.name), undefined, READS_ONLY);
  if (indexedRecords > expectedWithEntries) note('orphaned', await removeOrphans(engine, database, indexed, environmentId));
  return drift;
}

function expectedDigests(store: IndexStore, indexed: IndexedObject, record: DataRecord): EntryDigest[] {
  return buildDocument(indexed, record).map((entry) => ({ field: entry.field, digest: md5(store.storedText(entry)) }));
}

/** The same entries (field and digest), whatever their order. */
export function sameEntries(a: readonly EntryDigest[], b: readonly EntryDigest[]): boolean {
  if (a.length !== b.length) return false;
  const key = (list: readonly EntryDigest[]) => list.map((e) => `${e.field}\u0000${e.digest}`).sort().join('\u0001');
  return key(a) === key(b);
}

/**
 * Rewrite these records' entries in one transaction, from a fresh system read taken after their
 * entries are locked: a write that commits meanwhile is either seen by the read or writes its own
 * entries after the repair.
 */
async function rewrite(engine: DataEngine, database: DataDatabase, indexed: IndexedObject, environmentId: string, ids: readonly string[]): Promise<void> {
  await engine.transaction(systemContext(environmentId), async (tx) => {
    await database.withDatabase(environmentId, (db) => storeFor(db).lock(db.knex, indexed.name, ids), tx);
    const records = await readFull(tx, indexed, environmentId, ids);
    await database.withDatabase(environmentId, async (db) => {
      const store = storeFor(db);
      await store.remove(db.knex, indexed.name, ids);
      await store.writeNew(db.knex, indexed.name, [...records].map(([id, record]) => ({ id, document: buildDocument(indexed, record) })));
    }, tx);
  });
}

/** Remove the entries of records that do not exist; answers their ids. */
async function removeOrphans(engine: DataEngine, database: DataDatabase, indexed: IndexedObject, environmentId: string): Promise<string[]> {
  const orphans: string[] = [];
  let after: string | null = null;
  for (;;) {
    const ids: string[] = await database.withDatabase(environmentId, (db) => storeFor(db).recordIds(db.knex, indexed.name, after, indexed.pageSize), undefined, READS_ONLY);
    if (ids.length === 0) break;
    const existing = await readFull(engine, indexed, environmentId, ids);
    const gone = ids.filter((id) => !existing.has(id));
    if (gone.length > 0) {
      const removed = await engine.transaction(systemContext(environmentId), async (tx) => {
        await database.withDatabase(environmentId, (db) => storeFor(db).lock(db.knex, indexed.name, gone), tx);
        // A record created meanwhile is kept: only ids still missing after the lock are removed.
        const created = await readFull(tx, indexed, environmentId, gone);
        const still = gone.filter((id) => !created.has(id));
        await database.withDatabase(environmentId, (db) => storeFor(db).remove(db.knex, indexed.name, still), tx);
        return still;
      });
      orphans.push(...removed);
    }
    after = ids[ids.length - 1]!;
  }
  return orphans;
}
