import { definePlugin } from '../../kernel/definePlugin.ts';
import { codedError, KernelBootError } from '../../kernel/errors.ts';
import { createAccessGrants } from './access/accessGrants.ts';
import { createAccessService } from './access/accessService.ts';
import { shareInvalidation } from './access/shareInvalidation.ts';
import { contributedScopes } from './access/contributedScopes.ts';
import { ownerPrivateScope } from './access/ownerPrivate.ts';
import { mapConnectionErrors } from './engine/connectionError.ts';
import { createDataDatabase } from './engine/createDataDatabase.ts';
import { createDataEngine } from './engine/createDataEngine.ts';
import { RECORD_HISTORY } from './engine/recordHistory.ts';
import { createListPlans } from './query/listPlans.ts';
import { createByIdPlans } from './query/byIdPlans.ts';
import { createCountCache, MAX_TOTALS, type CountCache } from './query/countCache.ts';
import { listenForWrites, type WriteSignal } from './sql/writeSignal.ts';
import { ensureChangeTriggers } from './sql/changeTriggers.ts';
import { desiredSchema } from './sql/desiredSchema.ts';
import { fileChanges } from './sql/fileChanges.ts';
import { createReadPoolPolicy, defaultReaders } from './query/readPool.ts';
import { buildIndexAdvice } from './advice/buildIndexAdvice.ts';
import { recordSlowQueries } from './advice/recordSlowQueries.ts';
import { createSlowQueryRecorder } from './advice/slowQueryRecorder.ts';
import { createAutoIndexer } from './advice/autoIndexer.ts';
import { ensureAutoIndexTable, readAutoIndexes } from './advice/autoIndexRecord.ts';
import { sweepAutoIndexes } from './advice/autoIndexSweep.ts';
import { createAutoIndexUse, type AutoIndexUse } from './advice/autoIndexUse.ts';
import { ensureSequenceTable } from './engine/nextSequence.ts';
import { dataOptionsSchema } from './dataOptions.ts';
import { policyErrors } from './policyErrors.ts';
import { SYSTEM_APP_DIR } from './systemApp.ts';
import { openDatabase, type Database } from './sql/openDatabase.ts';
import { refreshStatistics } from './sql/sqliteStatistics.ts';
import { summarizeSchema } from './sql/summarizeSchema.ts';
import { syncSchema } from './sql/syncSchema.ts';
import { declaredIndexesOf } from './sql/declaredIndexesOf.ts';
import { materializedDatasets } from './sql/materializedDatasets.ts';
import { rollupTable, syncRollups } from './sql/rollups.ts';
import { foldRollups } from './sql/foldRollups.ts';

const states = new WeakMap<object, Map<string, Database>>();
const foldTimers = new WeakMap<object, NodeJS.Timeout[]>();
const signalsOf = new WeakMap<object, Map<string, WriteSignal>>();
/** PostgreSQL environments whose tables could not get their change triggers: nothing is remembered there. */
const blindOf = new WeakMap<object, Set<string>>();
const countsOf = new WeakMap<object, CountCache>();
const fileLooksOf = new WeakMap<object, Map<string, ReturnType<typeof fileChanges>>>();
const autoIndexUses = new WeakMap<object, AutoIndexUse>();

/**
 * The data engine: one database per environment, schema kept in step with metadata at start,
 * and every record read and write going through the engine's pipeline.
 */
export default definePlugin({
  name: 'data',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['runtime.info', 'secrets.keys', 'hooks.registry', 'metadata.registry'],
  optional: ['events.bus'],
  provides: ['data.engine', 'data.database', 'access.grants', 'data.scopes', 'data.indexAdvice', 'data.writeTokens'],
  options: dataOptionsSchema,
  timeoutMs: 60_000,
  register(ctx) {
    const databases = new Map<string, Database>();
    states.set(ctx, databases);
    const secrets = ctx.resolve('secrets.keys');
    const cursorKeys = new Map<string, Buffer>();
    const metadata = ctx.resolve('metadata.registry');
    // The permission model (positions, permission sets, shares, sharing rules) is metadata like any object.
    metadata.contributeApp(SYSTEM_APP_DIR);
    // Record history is audit data: kept hot 90 days, then archived by the lifecycle service.
    ctx.retention({
      name: 'data.record-history', object: RECORD_HISTORY, keepDays: 90, action: 'archive', ageField: 'created_at',
      description: 'Record history entries (enable.trackHistory): audit, kept hot 90 days, then archived.',
    });
    const bus = ctx.resolve('events.bus');
    const access = shareInvalidation(createAccessService(metadata, undefined, bus), bus);
    const scopes = contributedScopes();
    scopes.add(ownerPrivateScope);
    ctx.provide('data.scopes', { add: (scope) => scopes.add(scope) });
    const database = (environmentId: string) => {
      const db = databases.get(environmentId);
      if (!db) throw codedError('NOT_FOUND', { what: `Environment '${environmentId}'` });
      return db;
    };
    const counts = ctx.options.countCache === 'off' ? undefined : createCountCache(MAX_TOTALS, Math.round(ctx.options.pageCacheMb * 1024 * 1024));
    if (counts) countsOf.set(ctx, counts);
    // PostgreSQL: each environment's totals are remembered while its write signal is live (writeSignal.ts).
    const signals = new Map<string, WriteSignal>();
    signalsOf.set(ctx, signals);
    const blind = new Set<string>();
    blindOf.set(ctx, blind);
    const fileLooks = new Map<string, ReturnType<typeof fileChanges>>();
    fileLooksOf.set(ctx, fileLooks);
    // A lost database connection reaches callers as a 503 they may retry, whatever the route.
    ctx.provide('data.database', mapConnectionErrors(createDataDatabase({ database, counts })));
    // Slow list and query reads have their shapes recorded for index advice (advice/).
    const slow = createSlowQueryRecorder(ctx.options.slowQueryMs);
    const use = ctx.options.autoIndex ? createAutoIndexUse() : undefined;
    if (use) autoIndexUses.set(ctx, use);
    const autoIndexer = use
      ? createAutoIndexer({ recorder: slow, knexOf: (id) => database(id).knex, objectOf: (name) => metadata.object(name), maxPerObject: ctx.options.autoIndexMax, use, log: ctx.log })
      : undefined;
    ctx.provide('data.engine', mapConnectionErrors(recordSlowQueries(createDataEngine({
      metadata,
      hooks: ctx.resolve('hooks.registry'),
      database,
      access,
      counts,
      countsLive(environmentId) {
        if (blind.has(environmentId)) return false;
        const signal = signals.get(environmentId);
        if (signal) return signal.live();
        // SQLite: another process (or program) that wrote to the file makes everything remembered go first.
        const look = fileLooks.get(environmentId);
        if (!look) return false;
        const seen = look();
        if (seen === 'changed') counts?.changed(environmentId);
        return seen !== 'unknown';
      },
      tokenHeard: (environmentId, token) => signals.get(environmentId)?.heard(token) !== false,
      plans: createByIdPlans(),
      listPlans: createListPlans(),
      cost: { timeoutMs: ctx.options.queryTimeoutMs, maxJoins: ctx.options.maxJoins },
      readPool: createReadPoolPolicy(ctx.options.pooledReadMs),
      scopeFilter: (callCtx) => scopes.filter(callCtx),
      cursorKey(environmentId) {
        let key = cursorKeys.get(environmentId);
        if (!key) cursorKeys.set(environmentId, (key = secrets.derive('data.cursor', environmentId)));
        return key;
      },
    }), slow, metadata, autoIndexer ? (id) => void autoIndexer.consider(id) : undefined, use)));
    ctx.provide('data.indexAdvice', {
      slowQueryMs: slow.thresholdMs,
      advice: (environmentId) => buildIndexAdvice(slow.shapes(environmentId), database(environmentId).knex, (name) => metadata.object(name)),
      autoIndex: use !== undefined,
      sweepUnused: async (environmentId) => use
        ? sweepAutoIndexes({ knex: database(environmentId).knex, environmentId, use, unusedDays: ctx.options.autoIndexUnusedDays, objectOf: (name) => metadata.object(name), log: ctx.log })
        : { dropped: [], kept: [] },
    });
    // PostgreSQL, remembering: the token of this process's writes; SQLite's processes all read the one file.
    ctx.provide('data.writeTokens', { token: (environmentId) => (counts && !blind.has(environmentId) ? databases.get(environmentId)?.signal?.token() : undefined) });
    ctx.provide('access.grants', createAccessGrants(metadata, access, (environmentId) => database(environmentId).knex));
  },
  async start(ctx) {
    const databases = states.get(ctx)!;
    const objects = ctx.resolve('metadata.registry').objects();
    const problems = policyErrors(objects);
    if (problems.length > 0) throw new KernelBootError(problems);
    // Composite indexes for the declared views' and datasets' filters and sorts (declaredQueryIndexes.ts).
    const declared = declaredIndexesOf(objects, ctx.resolve('metadata.registry').apps());
    for (const [object, { indexes, skipped }] of declared) {
      for (const index of indexes) ctx.log.debug({ object, columns: index.columns, serves: index.from }, 'schema: a declared index');
      for (const skip of skipped) ctx.log.warn({ object, columns: skip.columns, declaredBy: skip.from }, `schema: no index for ${skip.from}: ${skip.reason} (declare it in the object's indexes to have it)`);
    }
    const materialized = materializedDatasets(objects, ctx.resolve('metadata.registry').apps());
    try {
      for (const env of ctx.resolve('runtime.info').environments) {
        const db = await openDatabase({ url: env.databaseUrl, statementTimeoutMs: ctx.options.queryTimeoutMs, readers: ctx.options.readers ?? defaultReaders(), ...(env.schema ? { schema: env.schema } : {}) });
        databases.set(env.id, db);
        if (db.dialect === 'sqlite' && countsOf.has(ctx)) fileLooksOf.get(ctx)!.set(env.id, fileChanges(db.knex));
        if (db.dialect === 'postgres' && countsOf.has(ctx)) {
          const environmentId = env.id;
          signalsOf.get(ctx)!.set(environmentId, listenForWrites(db.knex, db.schema, (tables) => countsOf.get(ctx)?.changed(environmentId, tables),
            (error) => ctx.log.warn({ environment: environmentId, err: error.message }, 'totals: not listening for other processes\' writes; counting every time until it listens again'), db.signal?.source, ctx.resolve('events.bus')?.watch));
        }
        if (ctx.options.schemaSync !== 'off') {
          const report = await syncSchema(db.knex, objects, { destructive: ctx.options.schemaSync === 'destructive', declared });
          await ensureSequenceTable(db.knex);
          // One line per sync; each change at debug level.
          if (report.actions.length > 0) ctx.log.info({ environment: env.id }, `schema: ${summarizeSchema(report.actions)}`);
          for (const line of report.lines) ctx.log.debug({ environment: env.id }, `schema: ${line}`);
        }
        // Materialized datasets: their rollup tables and triggers (sql/rollups.ts), folded from time to time.
        const rollups = await syncRollups(db.knex, materialized, ctx.options.schemaSync !== 'off');
        for (const name of rollups.created) ctx.log.info({ environment: env.id, dataset: name }, `schema: counts of materialized dataset ${name} kept in ${rollupTable(name)}`);
        for (const name of rollups.dropped) ctx.log.info({ environment: env.id, dataset: name }, `schema: ${rollupTable(name)} dropped (dataset ${name} is no longer materialized)`);
        if (materialized.length > 0) {
          const timers = foldTimers.get(ctx) ?? [];
          timers.push(foldRollups(db.knex, ctx.log, env.id));
          foldTimers.set(ctx, timers);
        }
        // Several processes on one SQLite file (osr start --workers N, or started apart) stay right
        // together: each looks at the file's data_version before serving anything remembered (fileChanges.ts).
        // Writes by other programs reach every process through the tables' triggers (changeTriggers.ts).
        if (db.dialect === 'postgres' && countsOf.has(ctx)) {
          try {
            const lacking = await ensureChangeTriggers(db.knex, db.schema, desiredSchema(objects, 'postgres').map((t) => t.name), ctx.options.schemaSync !== 'off');
            if (lacking.length > 0) {
              // schemaSync 'off': the schema is the operator's; without the triggers another program's writes go unheard.
              blindOf.get(ctx)!.add(env.id);
              ctx.log.warn({ environment: env.id, tables: lacking.slice(0, 20) }, `totals and pages: ${lacking.length} object tables have no change trigger and plugins.data.schemaSync is 'off' (the runtime creates none); nothing is remembered in this environment. Start once with schemaSync 'additive' to create them`);
            }
          } catch (error) {
            blindOf.get(ctx)!.add(env.id);
            ctx.log.warn({ environment: env.id, err: (error as Error).message }, 'totals and pages: the object tables\' change triggers could not be created; nothing is remembered in this environment');
          }
        }
        // autoIndex: the indexes it built are watched for use, and those unused too long dropped now.
        const use = autoIndexUses.get(ctx);
        if (use) {
          await ensureAutoIndexTable(db.knex);
          for (const row of await readAutoIndexes(db.knex)) use.watch(env.id, row);
          await sweepAutoIndexes({ knex: db.knex, environmentId: env.id, use, unusedDays: ctx.options.autoIndexUnusedDays, objectOf: (name) => ctx.resolve('metadata.registry').object(name), log: ctx.log });
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
    } catch (error) {
      // A refused schema change or an unreachable database fails the boot: the kernel does not stop
      // a plugin whose start failed, so what this start opened is closed here (open pools keep the
      // process alive).
      for (const timer of foldTimers.get(ctx) ?? []) clearInterval(timer);
      foldTimers.delete(ctx);
      const signals = signalsOf.get(ctx);
      if (signals) await Promise.all([...signals.values()].map((signal) => signal.close()));
      signals?.clear();
      await Promise.all([...databases.values()].map((db) => db.close().catch(() => undefined)));
      databases.clear();
      throw error;
    }
  },
  async stop(ctx) {
    for (const timer of foldTimers.get(ctx) ?? []) clearInterval(timer);
    foldTimers.delete(ctx);
    const signals = signalsOf.get(ctx);
    if (signals) await Promise.all([...signals.values()].map((signal) => signal.close()));
    signals?.clear();
    const databases = states.get(ctx)!;
    await Promise.all([...databases.values()].map((db) => db.close()));
    databases.clear();
  },
});
