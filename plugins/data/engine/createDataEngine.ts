import type { Knex } from 'knex';
import type { DataContext, DataEngine, DataRecord, GetOptions, ListResult, QueryOptions } from '../../../capabilities/dataEngine.ts';
import { holdsScope, idAndVersion, requireScope } from '../../../capabilities/credentialScopes.ts';
import { codedError } from '../../../kernel/errors.ts';
import type { ResolvedObject } from '../../../metadata/types.ts';
import { bindId, planFor } from '../query/byIdPlans.ts';
import { returningColumns } from '../query/compileQuery.ts';
import { plannedCursorPage } from '../query/cursorPages.ts';
import { costShape } from '../query/cursor.ts';
import { hasJoins, listPlanFor, listPlanKey } from '../query/listPlans.ts';
import { executeQuery, recordDecoder } from '../query/executeQuery.ts';
import { canRunNative } from '../sql/runNative.ts';
import { attachTransactionConnection } from '../sql/sqliteReader.ts';
import { heldTransaction } from '../sql/heldTransaction.ts';
import type Sqlite from 'better-sqlite3';
import { readWorkers, type ReadWorkers } from '../sql/sqliteReadWorkers.ts';
import { budgetError, DEFAULT_QUERY_COST, isCostly, requestClosed } from '../query/queryCost.ts';
import { parseQuery } from '../query/parseQuery.ts';
import { dialectOf } from '../sql/dialect.ts';
import { driverInputError } from './driverInputError.ts';
import { accessFor, appliesTo, celContext, objectOrNotFound, planOwner, withUser, type EngineDeps } from './engineDeps.ts';
import { readNow } from './readNow.ts';
import { outsideScope } from './outsideScope.ts';
import { hideInvisibleIn } from './hideInvisibleIn.ts';
import { ACCESS_OBJECTS, LINK_OBJECTS } from '../access/accessObjects.ts';
import { combineScopes, fieldGuard, readScope, requireAction, stripHidden } from '../access/enforceAccess.ts';
import { createRecord, deleteRecord, prepareUpdate, updateRecord, type WriteAnswer, type WriteScope } from './writeRecords.ts';
import { aloneScope, createAlone, DECLINED, updateAlone, type AloneScope } from './writeAlone.ts';
import { runHooks } from './runHooks.ts';
import { createRecords, prepareCreates, prepareOne, type ReadBack } from './createRecords.ts';
import { QUERY_LIMITS } from '../query/queryLimits.ts';
import { inSavepoint } from './inSavepoint.ts';
import { hideTrashed, onlyTrashed } from './trash.ts';
import { purgeRecord, restoreRecord } from './trashRecords.ts';
import { createListings } from './engineListings.ts';
import { upsertRecord } from './upsertRecord.ts';
import { bindEngine, type Binding } from './engineBinding.ts';

/**
 * The data engine: every read and write of records goes through here, whatever the route.
 * Reads: beforeFind hooks, metadata-checked query, scope filter, afterFind hooks.
 * Writes: see writeRecords.ts; each runs in one transaction with its hooks, and answers with
 * its record read back in that transaction without the find hooks, so a beforeFind that hides
 * rows cannot turn a write into a 404 and afterInsert/afterUpdate see what was stored.
 */
export function createDataEngine(deps: EngineDeps, binding?: Binding): DataEngine {
  // An object with apiEnabled false is outside the data API: a caller's query cannot join or expand
  // into it, and hears exactly what an unknown object gets. Engine work (ctx.system) sees everything.
  const everything = { get: (name: string) => deps.metadata.object(name) };
  const published = {
    get(name: string) {
      const object = deps.metadata.object(name);
      return object?.apiEnabled ? object : undefined;
    },
  };

  const cost = deps.cost ?? DEFAULT_QUERY_COST;
  /** How a costly query runs: its deadline, and off the main thread on a SQLite file outside a transaction. */
  const costlyRun = (knex: Knex, signal: AbortSignal | undefined): { deadline: number; workers?: ReadWorkers; signal?: AbortSignal } => {
    const workers = binding ? undefined : readWorkers(knex);
    return { deadline: Date.now() + cost.timeoutMs, ...(workers ? { workers } : {}), ...(signal && !binding ? { signal } : {}) };
  };

  const knexFor = (ctx: DataContext): Knex => {
    if (binding) {
      if (binding.environmentId !== ctx.environmentId) {
        throw codedError('VALIDATION_ERROR', { summary: 'a transaction cannot span environments' });
      }
      return binding.trx;
    }
    return deps.database(ctx.environmentId).knex;
  };

  /**
   * A query through the pipeline; `hooks` false for a write's read-back (find hooks belong to reads).
   * `planId`: the query is a plain read of this id, which may use a plan made once (byIdPlans.ts).
   */
  async function find(
    object: ResolvedObject, input: Record<string, unknown>, ctx: DataContext, options: QueryOptions, hooks: boolean, knex = knexFor(ctx), planId?: string,
    trash?: { deletedBy: string | null },
  ): Promise<ListResult> {
    const cel = celContext(ctx);
    // Taken before anything runs: a write that starts from here on voids what this read counts
    // and the page it reads. A read by id is remembered on PostgreSQL only (a round trip each);
    // on a SQLite file it reads the page cache of the file itself (readNow.ts).
    const sqlite = dialectOf(knex) === 'sqlite';
    // A caller's token of a write this process has not heard of yet (another process's): nothing remembered.
    const current = ctx.writeToken === undefined || deps.tokenHeard?.(ctx.environmentId, ctx.writeToken) !== false;
    // Never inside a transaction: a write's read-back runs on its transaction's connection (not
    // through a bound engine), and what it reads is not committed; others would be answered with it.
    const rememberable = current && deps.counts !== undefined && !binding && knex.isTransaction !== true && (planId === undefined || !sqlite);
    // Asked only for a read a remembered answer may serve, before its reader is made: on SQLite the
    // look at the file (fileChanges.ts) may forget what another connection made stale.
    const live = rememberable && (deps.countsLive ? deps.countsLive(ctx.environmentId) : sqlite);
    const counts = live ? deps.counts!.reader(ctx.environmentId) : undefined;
    const before = { object: object.name, query: { ...input }, ctx };
    if (hooks) {
      const running = runHooks(deps.hooks, 'data.beforeFind', object.name, before);
      if (running) await running;
    }
    const pending = accessFor(deps, knex, ctx);
    const access = pending && (await pending);
    if (access) requireAction(access.profile, access.principal, object, 'read');
    const parse = parser(object, ctx, access, cel);
    const contributed = deps.scopeFilter?.(ctx);
    const callerScope = combineScopes(access ? readScope(access.profile) : undefined, contributed);
    // Trashed rows are out of every read (trash.ts); the trash listing reads them alone, unplanned.
    const scopeFilter = trash ? onlyTrashed(object, trash.deletedBy, callerScope) : hideTrashed(callerScope);
    // A plan holds for a caller as long as nothing but the id changes: no transaction, no
    // contributed scope (it may depend on the call), no beforeFind hook (it may rewrite the query).
    // A read by id touches its object only: a contributed scope matters when it applies to it.
    // A list query (an aggregation too) without a cursor or {$cel} is planned the same way (listPlans.ts).
    const plannable = deps.plans && !binding && !trash && canRunNative(knex) && !(hooks && deps.hooks.handlers('data.beforeFind', object.name).length > 0);
    const owner = () => planOwner(deps.plans!, access?.profile, ctx);
    const plan = plannable && planId !== undefined && !appliesTo(contributed, object) ? planFor(deps.plans!, object, owner(), knex, parse, scopeFilter) : undefined;
    // A page after a cursor uses the plan of its query without the cursor (the walk's first page
    // made it), with the page after such a cursor planned in it (cursorPages.ts).
    const cursor = typeof before.query.cursor === 'string' && before.query.cursor !== '' ? before.query.cursor : null;
    const listQuery = cursor === null ? before.query : { ...before.query, cursor: undefined };
    // An estimated total is counted by statements of its own, compiled with the page (executeQuery.ts).
    // A contributed scope (the call's) keeps a list unplanned where the plan's statements would hold
    // it: on the object itself, or on an object the query joins. Expanded records are read with
    // the call's own scope, planned page or not.
    const contributes = appliesTo(contributed, object) || (contributed !== undefined && hasJoins(listQuery));
    const listKey = plannable && !contributes && planId === undefined && deps.listPlans && options.total !== 'estimated' ? listPlanKey(listQuery) : null;
    let listPlan = listKey !== null ? listPlanFor(deps.listPlans!, object, owner(), listKey, knex, () => parse(listQuery), scopeFilter) : undefined;
    const cursorKey = deps.cursorKey(ctx.environmentId);
    const page = listPlan && cursor !== null ? plannedCursorPage(listPlan, cursor, knex, scopeFilter, cursorKey) : undefined;
    if (cursor !== null && !page) listPlan = undefined;
    const ast = plan?.ast ?? listPlan?.ast ?? parse(before.query);
    // A query whose joins may multiply rows runs under the time budget, compiled afresh (its
    // statements bind their deadline); on a SQLite file, in the read workers (sqliteReadWorkers.ts).
    const costly = isCostly(ast);
    if (costly) listPlan = undefined;
    // Reads that cost (aggregations, shapes slow before) go to the SQLite read workers, planned or
    // not, outside transactions (readPool.ts); by-id reads and quick pages stay on the main thread.
    const workers = !costly && planId === undefined && deps.readPool && !binding ? readWorkers(knex) : undefined;
    // Judged by the shape of the read without its values: each filter value is not a shape of its own
    // that must run slowly on the main thread before it is sent to the workers.
    const shapeKey = workers ? `${ctx.environmentId}\u0000${listPlan ? (listPlan.costShape ??= costShape(ast)) : costShape(ast)}` : '';
    const pooled = workers !== undefined && deps.readPool!.pooled(ast, shapeKey);
    const started = workers ? performance.now() : 0;
    // A pooled read is judged by its statements' time in the workers, not by its wait for one:
    // under load the queue alone would keep a quick page in the pool.
    const timing = pooled ? { ms: 0 } : undefined;
    // A page answered from memory ran nowhere: it says nothing of where the next one should.
    const served = workers ? { remembered: false } : undefined;
    let result: ListResult;
    try {
      result = await executeQuery(ast, knex, {
        cursorKey,
        cel,
        ...(costly ? costlyRun(knex, ctx.signal) : {}),
        ...(pooled ? { workers, workersDeadline: Date.now() + cost.timeoutMs, timing, ...(ctx.signal ? { signal: ctx.signal } : {}) } : {}),
        ...(plan ? { statement: { sql: plan.sql, bindings: bindId(plan, planId!) } } : {}),
        ...(listPlan ? { plan: listPlan } : {}),
        ...(page ? { after: page.after, statement: page.statement } : {}),
        ...(counts && !costly ? { counts } : {}),
        ...(served ? { served } : {}),
        scopeFilter,
        ...(options.total === false || options.total === 'estimated' || options.total === 'capped' ? { total: options.total } : {}),
      });
    } catch (error) {
      if ((costly || pooled) && ctx.signal?.aborted) throw requestClosed();
      throw budgetError(error, cost) ?? driverInputError(error) ?? error;
    }
    if (workers && !ast.aggregate && !ast.distinct && !served!.remembered) deps.readPool!.ran(shapeKey, timing ? timing.ms : performance.now() - started);
    // Conditional visibility is decided on the record as read, before field security removes anything.
    if (!ctx.system) hideInvisibleIn(result.items, ast, cel);
    if (access) stripHidden(result.items, ast, access.profile);
    if (!hooks) return result;
    const after = { object: object.name, query: before.query, result, ctx };
    const running = runHooks(deps.hooks, 'data.afterFind', object.name, after);
    if (running) await running;
    return after.result;
  }

  async function byId(object: ResolvedObject, id: string, options: GetOptions, ctx: DataContext, hooks: boolean, knex = knexFor(ctx)): Promise<DataRecord> {
    const query: Record<string, unknown> = { where: { id: { $eq: id } }, limit: 1 };
    if (options.select) query.select = options.select.includes('id') ? options.select : ['id', ...options.select];
    if (options.expand) query.expand = options.expand;
    // Engine ids never hold U+0000, which PostgreSQL refuses even as a parameter.
    const plain = !options.select && !options.expand;
    const record = String(id).includes('\u0000') ? undefined : (await find(object, query, ctx, { total: false }, hooks, knex, plain ? String(id) : undefined)).items[0];
    if (!record) throw recordNotFound(object, id);
    return record;
  }

  /** How `ctx`'s queries of `object` are parsed (`access` from accessFor). */
  function parser(object: ResolvedObject, ctx: DataContext, access: Awaited<ReturnType<typeof accessFor>>, cel: ReturnType<typeof celContext>) {
    return (query: Record<string, unknown>) => parseQuery(query, object, ctx.system ? everything : published, {
      maxJoins: cost.maxJoins,
      cel: access ? { ...cel, user: { ...cel.user!, positions: access.profile.grants.positions } } : cel,
      ...(access ? { fieldGuard: fieldGuard(access.profile, access.principal) } : {}),
    });
  }

  /**
   * How a write answers its row as the caller's read by id shows it, from the write statement's
   * own `returning` (writeReturning.ts) instead of a read-back: the select list of the caller's
   * by-id plan, and that read's decoding, formulas, conditional visibility and field security.
   * Undefined where the read would filter rows (a row scope, a contributed scope, a trash) or is
   * not planned (an engine-owned link object): the write reads back. Inside a transaction too:
   * only the plan's parsed query and select list are used, the statement runs on `knex`.
   */
  async function returningOf(object: ResolvedObject, ctx: DataContext, knex: Knex): Promise<WriteAnswer | undefined> {
    if (!deps.plans || LINK_OBJECTS.has(object.name) || !canRunNative(knex)) return undefined;
    const pending = accessFor(deps, knex, ctx);
    const access = pending && (await pending);
    if (access) requireAction(access.profile, access.principal, object, 'read');
    const contributed = deps.scopeFilter?.(ctx);
    if (appliesTo(contributed, object)) return undefined;
    const scopeFilter = hideTrashed(combineScopes(access ? readScope(access.profile) : undefined, contributed));
    if (scopeFilter(object) !== null) return undefined;
    const cel = celContext(ctx);
    const plan = planFor(deps.plans, object, planOwner(deps.plans, access?.profile, ctx), knex, parser(object, ctx, access, cel), scopeFilter);
    if (!plan || plan.ast.joins.length > 0 || plan.ast.expand.length > 0) return undefined;
    const decode = recordDecoder(plan.ast, dialectOf(knex), cel);
    return {
      columns: (plan.returning ??= returningColumns(plan.ast)),
      record(row) {
        const items = [decode(row)];
        if (!ctx.system) hideInvisibleIn(items, plan.ast, cel);
        if (access) stripHidden(items, plan.ast, access.profile);
        return items[0]!;
      },
    };
  }

  function recordNotFound(object: ResolvedObject, id: string) {
    return codedError('NOT_FOUND', { what: `${object.label} '${String(id).slice(0, 64)}'`, object: object.name, id: String(id).slice(0, 64) });
  }

  // The credential's scope ceiling comes first, before the object is even looked up: a scoped
  // caller learns nothing from a refused call. Every route, tool and plugin reaches records here.
  const reads = (ctx: DataContext, operation: string, name: string) => requireScope(ctx.principal, 'data:read', `${operation} on object ${name.slice(0, 64)}`);
  const writes = (ctx: DataContext, operation: string, name: string) => requireScope(ctx.principal, 'data:write', `${operation} on object ${name.slice(0, 64)}`);

  // A credential that may write but not read (no data:read) is answered what it needs to go on
  // writing, the id and version, never the stored record: a write is no way around the read scope.
  // Engine work done for it (a plugin's own rows, in a system context) is answered in full.
  const blind = (ctx: DataContext) => ctx.system !== true && !holdsScope(ctx.principal, 'data:read');
  const answered = <T>(ctx: DataContext, write: Promise<T>, trim: (value: T) => T): Promise<T> => (blind(ctx) ? write.then(trim) : write);

  const engine: DataEngine = {
    // Find hooks belong to callers' reads: an engine-internal read (system context) may skip them.
    query: (name, input, ctx, options = {}) => scoped(() => reads(ctx, 'query', name), () => find(objectOrNotFound(deps, name), input, withUser(ctx), options, !(ctx.system === true && options.findHooks === false))),
    get(name, id, options, ctx) {
      try {
        reads(ctx, 'get', name);
      } catch (error) {
        return Promise.reject(error);
      }
      const object = objectOrNotFound(deps, name);
      const caller = withUser(ctx);
      if (!binding && !options.select && !options.expand) {
        try {
          const record = readNow(deps, object, String(id), caller);
          if (record) return Promise.resolve(record);
          // The planned read found nothing: the full path would read it again to say the same.
          if (record === null) return Promise.reject(recordNotFound(object, id));
        } catch (error) {
          return Promise.reject(error);
        }
      }
      return byId(object, id, options, caller, !(ctx.system === true && options.findHooks === false));
    },
    getNow(name, id, ctx) {
      reads(ctx, 'get', name);
      return binding ? undefined : readNow(deps, objectOrNotFound(deps, name), String(id), withUser(ctx)) ?? undefined;
    },
    async outside(name, record, where, ctx) {
      reads(ctx, 'get', name);
      const object = objectOrNotFound(deps, name);
      const caller = withUser(ctx);
      const knex = knexFor(caller);
      const pending = accessFor(deps, knex, caller);
      const access = pending && (await pending);
      if (access) requireAction(access.profile, access.principal, object, 'read');
      // A beforeFind hook may rewrite what the reader's read asks: that read decides.
      if (deps.hooks.handlers('data.beforeFind', object.name).length > 0) return false;
      const scopeFilter = hideTrashed(combineScopes(access ? readScope(access.profile) : undefined, deps.scopeFilter?.(caller)));
      const parsed = where === undefined || where === null ? null : parser(object, caller, access, celContext(caller))({ where, limit: 1 }).where;
      return outsideScope(object, record, scopeFilter, parsed);
    },
    create: (name, input, ctx) => scoped(() => writes(ctx, 'create', name), () => answered(ctx, granting(name, ctx, aloneOr(ctx,
      (alone) => createAlone(deps, alone, objectOrNotFound(deps, name), input, withUser(ctx)),
      (scope, prepared) => createRecord(deps, scope, objectOrNotFound(deps, name), input, withUser(ctx), prepared),
      () => prepareOne(deps, objectOrNotFound(deps, name), input, withUser(ctx)))), idAndVersion)),
    createMany: (name, inputs, ctx, options) => scoped(() => writes(ctx, 'create', name), () => {
      const object = objectOrNotFound(deps, name);
      const caller = withUser(ctx);
      // Coercion and size bounds before the transaction opens (on SQLite, before the writer is taken).
      if (!binding) prepareCreates(deps, object, inputs, caller);
      return answered(ctx, granting(name, ctx, inTransaction(ctx, (scope) => createRecords(deps, scope, object, inputs, caller, readBack(scope.trx), options?.idsOnly === true))),
        (outcomes) => outcomes.map((o) => (o.record ? { record: idAndVersion(o.record) } : o)));
    }),
    prepareMany(name, inputs, ctx) {
      writes(ctx, 'create', name);
      prepareCreates(deps, objectOrNotFound(deps, name), inputs, withUser(ctx));
    },
    update: (name, id, patch, options, ctx) => scoped(() => writes(ctx, 'update', name), () => answered(ctx, granting(name, ctx, aloneOr(ctx,
      (alone) => updateAlone(deps, alone, objectOrNotFound(deps, name), String(id), patch, options, withUser(ctx)),
      (scope, prepared) => updateRecord(deps, scope, objectOrNotFound(deps, name), id, patch, options, withUser(ctx), prepared),
      () => prepareUpdate(deps, objectOrNotFound(deps, name), patch, withUser(ctx)))), idAndVersion)),
    delete: (name, id, options, ctx) => scoped(() => writes(ctx, 'delete', name), () => granting(name, ctx, inTransaction(ctx, (scope) => deleteRecord(deps, scope, objectOrNotFound(deps, name), id, options, withUser(ctx))))),
    history: (name, id, page, ctx) => scoped(() => reads(ctx, 'history', name), () => readHistory(objectOrNotFound(deps, name), id, page, withUser(ctx))),
    trash: (name, page, ctx) => scoped(() => reads(ctx, 'trash', name), () => listTrash(objectOrNotFound(deps, name), page, withUser(ctx))),
    restore: (name, id, ctx) => scoped(() => writes(ctx, 'restore', name), () => answered(ctx, granting(name, ctx, inTransaction(ctx, (scope) => restoreRecord(deps, scope, objectOrNotFound(deps, name), id, withUser(ctx)))), idAndVersion)),
    purge: (name, id, ctx) => scoped(() => writes(ctx, 'purge', name), () => granting(name, ctx, inTransaction(ctx, (scope) => purgeRecord(deps, scope, objectOrNotFound(deps, name), id, withUser(ctx))))),
    upsert: (name, on, values, options, ctx) => scoped(() => writes(ctx, 'upsert', name), () => answered(ctx, granting(name, ctx, inTransaction(ctx, (scope) => upsertRecord(deps, scope, objectOrNotFound(deps, name), on, values, options, withUser(ctx)))),
      (done) => ({ created: done.created, record: idAndVersion(done.record) }))),
    transaction: (ctx, work) => inTransaction(ctx, (scope) => work(scope.engine)),
  };

  /** A batch's read-back: records by id as the caller may see them, without the find hooks (as a create's). */
  function readBack(trx: Knex.Transaction): ReadBack {
    return {
      limit: (object) => Math.min(object.maxPageSize, QUERY_LIMITS.inValues),
      read: async (object, ids, ctx) => (await find(object, { where: { id: { $in: ids } }, limit: ids.length }, ctx, { total: false }, false, trx)).items,
      answer: (object, ctx) => returningOf(object, ctx, trx),
    };
  }

  /** Run `call` once `check` passed; a refusal (or a synchronous throw) becomes a rejected promise. */
  function scoped<T>(check: () => void, call: () => Promise<T>): Promise<T> {
    try {
      check();
      return call();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  if (binding) bindEngine(engine, binding);
  const { readHistory, listTrash } = createListings(deps, find, byId, knexFor);

  /** A committed write to the permission model or a share changes grants: drop the cached ones. */
  function granting<T>(name: string, ctx: DataContext, write: Promise<T>): Promise<T> {
    if (!ACCESS_OBJECTS.has(name)) return write;
    return write.finally(() => deps.access?.invalidate(ctx.environmentId));
  }

  /**
   * A create or update that needs nothing but its own statement runs as that statement alone
   * (writeAlone.ts); one that declines (before writing anything), or any call inside a
   * transaction already, runs in a transaction of its own. Before that transaction opens,
   * `prepare` makes what the write needs of no database (prepareWrite.ts); a call inside a
   * transaction already makes it there.
   */
  function aloneOr<T, P>(
    ctx: DataContext, alone: (scope: AloneScope) => Promise<T | typeof DECLINED>, work: (scope: WriteScope, prepared?: P) => Promise<T>, prepare: () => P | undefined,
  ): Promise<T> {
    if (binding) return inTransaction(ctx, (scope) => work(scope));
    const prepared = () => {
      let made: P | undefined;
      try {
        made = prepare();
      } catch {
        // An object that is not there, say: the transaction answers it as before.
      }
      return inTransaction(ctx, (scope) => work(scope, made));
    };
    if (!deps.plans) return prepared();
    return alone(aloneScope(deps, ctx.environmentId, returningOf)).then((done) => (done === DECLINED ? prepared() : done));
  }

  // Nested calls (hooks writing through the engine they were given, a batch of writes in one
  // transaction) run in a savepoint of the open transaction: a failed call undoes only its own
  // work and leaves the outer transaction usable (PostgreSQL aborts a transaction on any failed
  // statement otherwise). They still commit or roll back with the outer transaction.
  function inTransaction<T>(ctx: DataContext, work: (scope: WriteScope) => Promise<T>): Promise<T> {
    const scope = (tx: DataEngine, trx: Knex.Transaction): WriteScope => ({
      engine: tx, trx,
      // A delegator may create an assignment it cannot list: its answer is read as engine work.
      read: (object, id, readCtx) => byId(object, id, {}, LINK_OBJECTS.has(object.name) ? { ...readCtx, system: true } : readCtx, false, trx),
      answer: (object, readCtx) => returningOf(object, readCtx, trx),
    });
    const bound = (trx: Knex.Transaction) => work(scope(createDataEngine(deps, { environmentId: ctx.environmentId, trx }), trx));
    // On SQLite the transaction's reads (read-backs, hooks' queries) go to its connection directly.
    const opened = (trx: Knex.Transaction, connection: unknown) => {
      if (dialectOf(trx) === 'sqlite') attachTransactionConnection(trx, connection as Sqlite.Database);
      return bound(trx);
    };
    const run = binding
      ? () => inSavepoint(knexFor(ctx) as Knex.Transaction, binding, () => bound(binding.trx))
      : () => {
        // PostgreSQL: other processes forget their totals of this schema once this committed (writeNotifier.ts).
        const db = deps.database(ctx.environmentId);
        // Told before anything waiting on the commit runs: a token taken then (realtime's) counts this write.
        return heldTransaction(db.knex, opened, db.signal ? () => db.signal!.wrote() : undefined);
      };
    if (binding || !deps.counts) return run();
    // Totals counted while the transaction is open or after it ends are not kept (countCache.ts).
    const counts = deps.counts;
    counts.changed(ctx.environmentId);
    return run().finally(() => counts.changed(ctx.environmentId));
  }
  return engine;
}
