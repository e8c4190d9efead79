import { requireScope } from '../../capabilities/credentialScopes.ts';
import { READS_ONLY, type DataDatabase } from '../../capabilities/dataDatabase.ts';
import type { AccessGrants } from '../../capabilities/accessGrants.ts';
import type { DataContext, DataEngine, DataRecord } from '../../capabilities/dataEngine.ts';
import type { MetadataRegistry } from '../../capabilities/metadataRegistry.ts';
import type { SearchHit, SearchIndex, SearchRequest } from '../../capabilities/searchIndex.ts';
import { codedError } from '../../kernel/errors.ts';
import type { Logger } from '../../kernel/logger.ts';
import { fetchVisible } from './fetchVisible.ts';
import { readFull } from './readFull.ts';
import { prepareEnvironment, rebuildObject } from './rebuildIndex.ts';
import { buildDocument, documentChanged, entryChanges, knownWords, searchPlan, type IndexedField, type IndexedObject, type KnownWords } from './searchPlan.ts';
import { storeFor } from './storeFor.ts';
import { queryTerms } from './tokenize.ts';

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;
/**
 * Matches examined per search at most. Hits the caller may not read are dropped after ranking, so
 * a caller who can read few of very many matches may get fewer hits than asked.
 */
export const MAX_CANDIDATES = 1000;

export interface SearchService extends SearchIndex {
  plan: ReadonlyMap<string, IndexedObject>;
  /**
   * The words of the searchable values a write sends, made before its transaction opens (the
   * hooks' `prepare`); undefined for an object without an index.
   */
  prepare(object: string, values: DataRecord): KnownWords | undefined;
  /**
   * Index a stored record, through `engine` (a write hook's: inside the write's transaction), from
   * a system read of it: never from the writer's view, which lacks the fields the writer may not
   * read. With `previous` (an update's full record before it), nothing is written when no
   * searchable field changed. `known` (from prepare): words of values as sent, used for the fields
   * the stored record holds the same value in; the others' words are made here.
   */
  write(engine: DataEngine, environmentId: string, object: string, id: string, previous?: DataRecord, known?: KnownWords): Promise<void>;
  remove(engine: DataEngine, environmentId: string, object: string, id: string): Promise<void>;
  /** Create the index tables in every environment and, unless told not to, rebuild what is missing or stale. */
  startup(environments: readonly string[], log: Logger, options: { rebuild: boolean }): Promise<void>;
}

/** The search index behind `search.index`, the data hooks and GET /search. */
export function createSearchService(engine: DataEngine, database: DataDatabase, metadata: MetadataRegistry, grants: AccessGrants): SearchService {
  let plan: { version: string; objects: Map<string, IndexedObject> } | null = null;
  const planOf = (): Map<string, IndexedObject> => {
    const version = metadata.version();
    if (plan?.version !== version) plan = { version, objects: searchPlan(metadata.objects()) };
    return plan.objects;
  };

  /** Per object, the searchable fields the caller may read: the only ones a search matches it on. */
  const readableFields = async (objects: readonly string[], ctx: DataContext) => {
    const fields = new Map<string, IndexedField[]>();
    for (const name of objects) {
      const indexed = planOf().get(name)!;
      const readable = new Set(await grants.readableFields(ctx, name, indexed.fields.map((f) => f.name)));
      const list = indexed.fields.filter((f) => readable.has(f.name));
      if (list.length > 0) fields.set(name, list);
    }
    return fields;
  };

  return {
    get plan() {
      return planOf();
    },

    objects: () => [...planOf().keys()],

    prepare(object, values) {
      const indexed = planOf().get(object);
      return indexed && knownWords(indexed, values);
    },

    async write(tx, environmentId, object, id, previous, known) {
      const indexed = planOf().get(object);
      if (!indexed) return;
      const record = (await readFull(tx, indexed, environmentId, [id])).get(id);
      if (record && previous && !documentChanged(indexed, previous, record)) return;
      await database.withDatabase(environmentId, async (db) => {
        const store = storeFor(db);
        if (!record) return store.remove(db.knex, object, [id]);
        // Words made before the transaction for the values as sent serve where the stored value is the same.
        const words: KnownWords = known ?? new Map();
        const after = buildDocument(indexed, record, words);
        if (!previous) return store.write(db.knex, object, id, after);
        // Only the entries of fields whose words changed are written again. The words of the
        // values the record had come from the locked stored record (`previous`): made here, once
        // for a value the update left as it was.
        const { write, drop } = entryChanges(buildDocument(indexed, previous, words), after);
        await store.remove(db.knex, object, [id], drop);
        await store.writeNew(db.knex, object, [{ id, document: write }]);
      }, tx);
    },

    async remove(tx, environmentId, object, id) {
      if (!planOf().has(object)) return;
      await database.withDatabase(environmentId, (db) => storeFor(db).remove(db.knex, object, [id]), tx);
    },

    async startup(environments, log, options) {
      for (const environmentId of environments) await prepareEnvironment(engine, database, planOf(), environmentId, log, options);
    },

    async rebuild(environmentId, object) {
      const targets = object === undefined ? [...planOf().values()] : [planOf().get(object)];
      let written = 0;
      for (const indexed of targets) {
        if (!indexed) throw codedError('NOT_FOUND', { what: `Search index of '${String(object).slice(0, 64)}'`, object: String(object).slice(0, 64) });
        written += await rebuildObject(engine, database, indexed, environmentId);
      }
      return written;
    },

    async search(request: SearchRequest, ctx: DataContext): Promise<{ items: SearchHit[] }> {
      // Before the index is read: an empty answer must not tell a scoped caller what matches.
      requireScope(ctx.principal, 'data:read', 'search');
      const terms = queryTerms(request.q);
      const objects = request.objects ?? [...planOf().keys()];
      const unknown = objects.filter((name) => !planOf().has(name));
      if (unknown.length > 0) {
        throw codedError('VALIDATION_ERROR', { summary: `no searchable fields on ${unknown.map((n) => `'${n.slice(0, 64)}'`).join(', ')}`, errors: unknown.map((n) => ({ path: 'object', message: `'${n.slice(0, 64)}' has no searchable fields` })) });
      }
      if (!terms || objects.length === 0) return { items: [] };
      const fields = await readableFields(objects, ctx);
      if (fields.size === 0) return { items: [] };
      const limit = Math.min(Math.max(1, Math.floor(request.limit ?? DEFAULT_LIMIT)), MAX_LIMIT);
      // Read twice the page per round: some candidates may be hidden from the caller.
      const batch = Math.min(Math.max(limit * 2, 20), MAX_CANDIDATES);
      const items: SearchHit[] = [];
      for (let offset = 0; offset < MAX_CANDIDATES && items.length < limit; offset += batch) {
        const candidates = await database.withDatabase(ctx.environmentId, (db) => storeFor(db).candidates(db.knex, { terms, fields, limit: batch, offset }), undefined, READS_ONLY);
        const records = await fetchVisible(engine, metadata, candidates, ctx);
        for (const candidate of candidates) {
          const record = records.get(`${candidate.object}\u0000${candidate.id}`);
          if (record) items.push({ ...candidate, record });
          if (items.length === limit) break;
        }
        if (candidates.length < batch) break;
      }
      return { items };
    },
  };
}
