import { definePlugin } from '../../kernel/definePlugin.ts';
import { codedError } from '../../kernel/errors.ts';
import { createDataEngine } from './engine/createDataEngine.ts';
import { ensureSequenceTable } from './engine/nextSequence.ts';
import { dataOptionsSchema } from './dataOptions.ts';
import { openDatabase, type Database } from './sql/openDatabase.ts';
import { syncSchema } from './sql/syncSchema.ts';

const states = new WeakMap<object, Map<string, Database>>();

/**
 * The data engine: one database per environment, schema kept in step with metadata at start,
 * and every record read and write going through the engine's pipeline.
 */
export default definePlugin({
  name: 'data',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['runtime.info', 'secrets.keys', 'hooks.registry', 'metadata.registry'],
  provides: ['data.engine'],
  options: dataOptionsSchema,
  timeoutMs: 60_000,
  register(ctx) {
    const databases = new Map<string, Database>();
    states.set(ctx, databases);
    const secrets = ctx.resolve('secrets.keys');
    const cursorKeys = new Map<string, Buffer>();
    ctx.provide('data.engine', createDataEngine({
      metadata: ctx.resolve('metadata.registry'),
      hooks: ctx.resolve('hooks.registry'),
      database(environmentId) {
        const db = databases.get(environmentId);
        if (!db) throw codedError('NOT_FOUND', { what: `Environment '${environmentId}'` });
        return db;
      },
      cursorKey(environmentId) {
        let key = cursorKeys.get(environmentId);
        if (!key) cursorKeys.set(environmentId, (key = secrets.derive('data.cursor', environmentId)));
        return key;
      },
    }));
  },
  async start(ctx) {
    const databases = states.get(ctx)!;
    const objects = ctx.resolve('metadata.registry').objects();
    for (const env of ctx.resolve('runtime.info').environments) {
      const db = await openDatabase({ url: env.databaseUrl, ...(env.schema ? { schema: env.schema } : {}) });
      databases.set(env.id, db);
      if (ctx.options.schemaSync === 'off') continue;
      const report = await syncSchema(db.knex, objects, { destructive: ctx.options.schemaSync === 'destructive' });
      await ensureSequenceTable(db.knex);
      for (const line of report.lines) ctx.log.info({ environment: env.id }, `schema: ${line}`);
    }
  },
  async stop(ctx) {
    const databases = states.get(ctx)!;
    await Promise.all([...databases.values()].map((db) => db.close()));
    databases.clear();
  },
});
