import { z } from 'zod';
import type { DataEngine, DataRecord } from '../../capabilities/dataEngine.ts';
import { definePlugin } from '../../kernel/definePlugin.ts';
import { createSearchService, type SearchService } from './createSearchService.ts';
import { addSearchRoute } from './searchRoute.ts';
import type { KnownWords } from './searchPlan.ts';
import type { PrepareEvent } from '../../capabilities/hooksRegistry.ts';

const optionsSchema = z.strictObject({
  /** Rebuild missing or stale indexes at start (default true); false leaves that to `search.index`'s rebuild(). */
  rebuildOnStart: z.boolean().default(true),
});

/** After the other plugins' after-hooks: the index follows what they settled on. */
const HOOK_PRIORITY = 1000;

const services = new WeakMap<object, SearchService>();

/**
 * Full-text search: an index per environment database (SQLite FTS5, PostgreSQL tsvector + GIN)
 * over the searchable fields, kept in step by the data hooks inside each write's transaction
 * (the words of the values sent made before it opens).
 * The index keeps each searchable field of a record apart and a search matches and scores the
 * caller only on the fields it may read; it finds and ranks ids, and records are read through the
 * data engine as the caller.
 */
export default definePlugin({
  name: 'search',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['data.engine', 'data.database', 'access.grants', 'metadata.registry', 'http.routes', 'runtime.info'],
  provides: ['search.index'],
  options: optionsSchema,
  timeoutMs: 600_000,
  register(ctx) {
    const metadata = ctx.resolve('metadata.registry');
    const service = createSearchService(ctx.resolve('data.engine'), ctx.resolve('data.database'), metadata, ctx.resolve('access.grants'));
    services.set(ctx, service);
    // Consumers get the capability's methods only; the hooks' write and remove stay inside.
    ctx.provide('search.index', { search: service.search, objects: service.objects, rebuild: service.rebuild });
    addSearchRoute(ctx.resolve('http.routes'), service, metadata);

    // Write hooks get the engine bound to the write's transaction: the index commits or rolls back with it.
    // The record is read again in a system context: event.record is the writer's view of it.
    // It indexes its own record alone: an import may run it for a batch of rows after writing them.
    // An object without a search index has nothing to write (appliesTo).
    const appliesTo = (object: string) => service.plan.has(object);
    // The words of the values a write sends are made before its transaction opens (prepare): the
    // transaction, on SQLite the one writer, is not held while long texts are split into words.
    const prepare = (event: PrepareEvent) => service.prepare(event.object, event.record);
    ctx.hook('data.afterInsert', (event: HookEvent, known?: KnownWords) => service.write(event.engine, event.ctx.environmentId, event.object, String(event.record!.id), undefined, known), { priority: HOOK_PRIORITY, batched: true, appliesTo, prepare });
    // event.previous is the full stored record (every field), compared with the full one after the write.
    ctx.hook('data.afterUpdate', (event: HookEvent, known?: KnownWords) => service.write(event.engine, event.ctx.environmentId, event.object, String(event.previous!.id), event.previous!, known), { priority: HOOK_PRIORITY, appliesTo, prepare });
    ctx.hook('data.afterDelete', (event: HookEvent) => service.remove(event.engine, event.ctx.environmentId, event.object, String(event.previous!.id)), { priority: HOOK_PRIORITY, appliesTo });
  },
  async start(ctx) {
    const environments = ctx.resolve('runtime.info').environments.map((env) => env.id);
    await services.get(ctx)!.startup(environments, ctx.log, { rebuild: ctx.options.rebuildOnStart });
  },
});

/** The fields of the write events this plugin reads. */
interface HookEvent {
  object: string;
  ctx: { environmentId: string };
  engine: DataEngine;
  record?: DataRecord;
  previous?: DataRecord;
}
