import type { DataDatabase } from '../../capabilities/dataDatabase.ts';
import type { DataEngine } from '../../capabilities/dataEngine.ts';
import type { Logger } from '../../kernel/logger.ts';
import { storeFor } from './storeFor.ts';
import { ensureStateTable, readFingerprints, writeFingerprint } from './indexState.ts';
import { systemContext } from './readFull.ts';
import { repairDrift } from './repairDrift.ts';
import { buildDocument, type IndexedObject } from './searchPlan.ts';

/** A progress line per this many records of one object. */
const PROGRESS_EVERY = 10_000;

/**
 * At start: create the index tables, then rebuild the index of every object whose index is
 * missing or was built from other fields or weights (fingerprint), check every other index against
 * the records and repair what drifted (rows written around the engine, a lost or altered entry);
 * drop the index of objects no longer searchable.
 */
export async function prepareEnvironment(
  engine: DataEngine, database: DataDatabase, plan: ReadonlyMap<string, IndexedObject>, environmentId: string, log: Logger, options: { rebuild: boolean },
): Promise<void> {
  const stored = await database.withDatabase(environmentId, async (db) => {
    await ensureStateTable(db.knex);
    await storeFor(db).ensure(db.knex);
    return readFingerprints(db.knex);
  });
  if (!options.rebuild) return;
  const broken = await database.withDatabase(environmentId, (db) => storeFor(db).verify(db.knex));
  if (broken !== null) {
    log.warn({ environment: environmentId, reason: broken }, 'search: the full-text index did not match its stored text and was rebuilt from it');
  }
  for (const indexed of plan.values()) {
    const at = { environment: environmentId, object: indexed.name };
    const reason = staleness(indexed, stored.get(indexed.name));
    if (reason === null) {
      const started = Date.now();
      const drift = await repairDrift(engine, database, indexed, environmentId);
      const total = drift.stale + drift.missing + drift.orphaned;
      if (total > 0) {
        log.warn({ ...at, ids: drift.ids, ms: Date.now() - started },
          `search: repaired ${total} drifted document(s) of ${indexed.name} (${drift.stale} stale, ${drift.missing} missing, ${drift.orphaned} orphaned)`);
      }
      continue;
    }
    log.info(at, `search: rebuilding the index of ${indexed.name} (${reason})`);
    const started = Date.now();
    const written = await rebuildObject(engine, database, indexed, environmentId, (n) => log.info(at, `search: ${indexed.name}: ${n} records indexed so far`));
    log.info(at, `search: indexed ${written} ${indexed.name} record(s) in ${Date.now() - started} ms`);
  }
  for (const object of stored.keys()) {
    if (plan.has(object)) continue;
    await database.withDatabase(environmentId, async (db) => {
      await storeFor(db).clear(db.knex, object);
      await writeFingerprint(db.knex, object, null);
    });
    log.info({ environment: environmentId, object }, `search: dropped the index of ${object} (no searchable fields any more)`);
  }
}

/** Why an object's index must be built again from scratch; null when it only needs checking. */
function staleness(indexed: IndexedObject, fingerprint: string | undefined): string | null {
  if (fingerprint === undefined) return 'no index yet';
  if (fingerprint !== indexed.fingerprint) return 'searchable fields or weights changed';
  return null;
}

/**
 * Rebuild one object's index in one transaction: readers keep the old index until it commits.
 * Records are read through the engine in a system context (every record, every field).
 */
export async function rebuildObject(engine: DataEngine, database: DataDatabase, indexed: IndexedObject, environmentId: string, progress?: (written: number) => void): Promise<number> {
  const ctx = systemContext(environmentId);
  const select = ['id', ...indexed.fields.map((f) => f.name)];
  return engine.transaction(ctx, async (tx) => {
    await database.withDatabase(environmentId, (db) => storeFor(db).clear(db.knex, indexed.name), tx);
    let written = 0;
    let cursor: string | null | undefined = null;
    do {
      const page = await tx.query(indexed.name, { select, orderBy: 'id', limit: indexed.pageSize, ...(cursor ? { cursor } : {}) }, ctx, { total: false });
      const entries = page.items.map((record) => ({ id: String(record.id), document: buildDocument(indexed, record) }));
      await database.withDatabase(environmentId, (db) => storeFor(db).writeNew(db.knex, indexed.name, entries), tx);
      const before = written;
      written += page.items.length;
      if (progress && Math.floor(written / PROGRESS_EVERY) > Math.floor(before / PROGRESS_EVERY)) progress(written);
      cursor = page.nextCursor;
    } while (cursor);
    await database.withDatabase(environmentId, (db) => writeFingerprint(db.knex, indexed.name, indexed.fingerprint), tx);
    return written;
  });
}
