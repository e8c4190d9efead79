import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../kernel/definePlugin.ts';
import { codedError, KernelBootError } from '../../kernel/errors.ts';
import { metadataError } from '../../metadata/metadataError.ts';
import { createAccessGrants } from './access/accessGrants.ts';
import { createAccessService } from './access/accessService.ts';
import { checkPolicy } from './access/compilePolicy.ts';
import { contributedScopes } from './access/contributedScopes.ts';
import { mapConnectionErrors } from './engine/connectionError.ts';
import { createDataDatabase } from './engine/createDataDatabase.ts';
import { createDataEngine } from './engine/createDataEngine.ts';
import { RECORD_HISTORY } from './engine/recordHistory.ts';
import { createListPlans } from './query/listPlans.ts';
import { createByIdPlans } from './query/byIdPlans.ts';
import { createCountCache } from './query/countCache.ts';
import { ensureSequenceTable } from './engine/nextSequence.ts';
import { dataOptionsSchema } from './dataOptions.ts';
import { openDatabase, type Database } from './sql/openDatabase.ts';
import { refreshStatistics } from './sql/sqliteStatistics.ts';
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
  provides: ['data.engine', 'data.database', 'access.grants', 'data.scopes'],
  options: dataOptionsSchema,
  timeoutMs: 60_000,
  register(ctx) {
    const databases = new Map<string, Database>();
    states.set(ctx, databases);
    const secrets = ctx.resolve('secrets.keys');
    const cursorKeys = new Map<string, Buffer>();
    const metadata = ctx.resolve('metadata.registry');
    // The permission model (positions, permission sets, shares, sharing rules) is metadata like any object.
    metadata.contributeApp(fileURLToPath(new URL('./system-app', import.meta.url)));
    // Record history is audit data: kept hot 90 days, then archived by the lifecycle service.
    ctx.retention({
      name: 'data.record-history', object: RECORD_HISTORY, keepDays: 90, action: 'archive', ageField: 'created_at',
      description: 'Record history entries (enable.trackHistory): audit, kept hot 90 days, then archived.',
    });
    const access = createAccessService(metadata);
    const scopes = contributedScopes();
    ctx.provide('data.scopes', { add: (scope) => scopes.add(scope) });
    const database = (environmentId: string) => {
      const db = databases.get(environmentId);
      if (!db) throw codedError('NOT_FOUND', { what: `Environment '${environmentId}'` });
      return db;
    };
    const counts = createCountCache();
    // A lost database connection reaches callers as a 503 they may retry, whatever the route.
    ctx.provide('data.database', mapConnectionErrors(createDataDatabase({ database, counts })));
    ctx.provide('data.engine', mapConnectionErrors(createDataEngine({
      metadata,
      hooks: ctx.resolve('hooks.registry'),
      database,
      access,
      counts,
      plans: createByIdPlans(),
      listPlans: createListPlans(),
      scopeFilter: (callCtx) => scopes.filter(callCtx),
      cursorKey(environmentId) {
        let key = cursorKeys.get(environmentId);
        if (!key) cursorKeys.set(environmentId, (key = secrets.derive('data.cursor', environmentId)));
        return key;
      },
    })));
    ctx.provide('access.grants', createAccessGrants(metadata, access, (environmentId) => database(environmentId).knex));
  },
  async start(ctx) {
    const databases = states.get(ctx)!;
    const objects = ctx.resolve('metadata.registry').objects();
    // Row policies run as SQL: one outside the compilable subset fails the boot, not a request.
    const policyErrors = objects.flatMap((object) => object.policies.flatMap((policy, i) => {
      const reason = checkPolicy(policy.condition, object);
      return reason ? [metadataError(object.source, `policies[${i}].condition`, `row policy '${policy.name}' cannot run as a query filter: ${reason}`)] : [];
    }));
    if (policyErrors.length > 0) throw new KernelBootError(policyErrors);
    for (const env of ctx.resolve('runtime.info').environments) {
      const db = await openDatabase({ url: env.databaseUrl, ...(env.schema ? { schema: env.schema } : {}) });
      databases.set(env.id, db);
      if (ctx.options.schemaSync !== 'off') {
        const report = await syncSchema(db.knex, objects, { destructive: ctx.options.schemaSync === 'destructive' });
        await ensureSequenceTable(db.knex);
        for (const line of report.lines) ctx.log.info({ environment: env.id }, `schema: ${line}`);
      }
      // PostgreSQL's autovacuum keeps its statistics; SQLite's are kept by the engine (sqliteStatistics.ts).
      if (db.dialect === 'sqlite') {
        const started = performance.now();
        const { analyzed } = await refreshStatistics(db.knex);
        if (analyzed.length > 0) {
          const tables = analyzed.map((a) => `${a.table} (${a.rows} rows)`).join(', ');
          ctx.log.info({ environment: env.id, ms: Math.round(performance.now() - started) }, `statistics: analyzed ${tables}`);
        }
      }
    }
  },
  async stop(ctx) {
    const databases = states.get(ctx)!;
    await Promise.all([...databases.values()].map((db) => db.close()));
    databases.clear();
  },
});
