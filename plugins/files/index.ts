import { READS_ONLY } from '../../capabilities/dataDatabase.ts';
import type { DataEngine } from '../../capabilities/dataEngine.ts';
import { definePlugin } from '../../kernel/definePlugin.ts';
import { addFileRoutes, FILE_OBJECT } from './fileRoutes.ts';
import { createFileStore } from './createFileStore.ts';
import { fileOptionsSchema } from './fileOptions.ts';

export { DEFAULT_MAX_BYTES } from './fileOptions.ts';

/**
 * Files attached to records of objects with `enable.files: true` (otherwise 403 FILES_DISABLED):
 * /data/:object/:id/files. Rows in the engine-owned sys_file; bytes in a store, on local disk or
 * in an S3-compatible bucket. A record deleted for good takes its files along: rows in the
 * delete's transaction, bytes once it committed. See docs/files.md.
 */
export default definePlugin({
  name: 'files',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['data.engine', 'data.database', 'metadata.registry', 'http.routes', 'runtime.info'],
  optional: ['access.grants'],
  options: fileOptionsSchema,
  async register(ctx) {
    const info = ctx.resolve('runtime.info');
    const store = await createFileStore(ctx.options, info.dataDir);
    const database = ctx.resolve('data.database');
    const engine = ctx.resolve('data.engine');
    const metadata = ctx.resolve('metadata.registry');
    addFileRoutes(ctx.resolve('http.routes'), {
      engine,
      metadata,
      grants: ctx.resolve('access.grants'),
      store,
      options: { maxBytes: ctx.options.maxBytes, ...(ctx.options.allowedTypes ? { allowedTypes: ctx.options.allowedTypes } : {}) },
    });
    ctx.hook('data.afterDelete', async (event: { object: string; previous: { id: unknown }; trash?: boolean; ctx: { environmentId: string }; engine: DataEngine }) => {
      if (event.trash || metadata.object(event.object)?.system !== false) return;
      const environmentId = event.ctx.environmentId;
      const keys = await database.withDatabase(environmentId, async ({ knex, whenCommitted }) => {
        const where = { object: event.object, record_id: String(event.previous.id) };
        const rows = (await knex(FILE_OBJECT).where(where).select('storage_key')) as Array<{ storage_key: string }>;
        if (rows.length === 0) return null;
        await knex(FILE_OBJECT).where(where).delete();
        return { keys: rows.map((r) => r.storage_key), committed: whenCommitted() };
      }, event.engine);
      if (!keys) return;
      // The bytes go once the delete committed, and only those whose rows are gone then: a rollback keeps them.
      const removeGone = async () => {
        const alive = await database.withDatabase(environmentId, ({ knex }) => knex(FILE_OBJECT).whereIn('storage_key', keys.keys).select('storage_key'), undefined, READS_ONLY) as Array<{ storage_key: string }>;
        const kept = new Set(alive.map((r) => r.storage_key));
        for (const key of keys.keys) if (!kept.has(key)) await store.remove(environmentId, key);
      };
      void keys.committed.then((ok) => ok ? removeGone() : undefined)
        .catch((error: unknown) => ctx.log.warn({ err: error, object: event.object }, 'removing the files of a deleted record failed'));
    });
  },
});
