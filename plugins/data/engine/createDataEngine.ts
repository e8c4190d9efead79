import type { Knex } from 'knex';
import type { DataContext, DataEngine, DataRecord, GetOptions, ListResult, QueryOptions } from '../../../capabilities/dataEngine.ts';
import { codedError } from '../../../kernel/errors.ts';
import type { ResolvedObject } from '../../../metadata/types.ts';
import { executeQuery } from '../query/executeQuery.ts';
import { parseQuery } from '../query/parseQuery.ts';
import { dialectOf } from '../sql/dialect.ts';
import { driverInputError } from './driverInputError.ts';
import { accessFor, celContext, objectOrNotFound, withUser, type EngineDeps } from './engineDeps.ts';
import { ACCESS_OBJECTS, LINK_OBJECTS } from '../access/accessObjects.ts';
import { combineScopes, fieldGuard, readScope, requireAction, stripHidden } from '../access/enforceAccess.ts';
import { createRecord, deleteRecord, updateRecord, type WriteScope } from './writeRecords.ts';
import { runHooks } from './runHooks.ts';

/** A transaction the engine is bound to: every call runs inside it. */
export interface Binding {
  environmentId: string;
  trx: Knex.Transaction;
}

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

  const knexFor = (ctx: DataContext): Knex => {
    if (binding) {
      if (binding.environmentId !== ctx.environmentId) {
        throw codedError('VALIDATION_ERROR', { summary: 'a transaction cannot span environments' });
      }
      return binding.trx;
    }
    return deps.database(ctx.environmentId).knex;
  };

  /** A query through the pipeline; `hooks` false for a write's read-back (find hooks belong to reads). */
  async function find(object: ResolvedObject, input: Record<string, unknown>, ctx: DataContext, options: QueryOptions, hooks: boolean, knex = knexFor(ctx)): Promise<ListResult> {
    const cel = celContext(ctx);
    const before = { object: object.name, query: { ...input }, ctx };
    if (hooks) await runHooks(deps.hooks, 'data.beforeFind', object.name, before);
    const access = await accessFor(deps, knex, ctx);
    if (access) requireAction(access.profile, access.principal, object, 'read');
    const ast = parseQuery(before.query, object, ctx.system ? everything : published, {
      cel: access ? { ...cel, user: { ...cel.user!, positions: access.profile.grants.positions } } : cel,
      ...(access ? { fieldGuard: fieldGuard(access.profile, access.principal) } : {}),
    });
    const scopeFilter = combineScopes(access ? readScope(access.profile) : undefined, deps.scopeFilter?.(ctx));
    const result = await executeQuery(ast, knex, {
      cursorKey: deps.cursorKey(ctx.environmentId),
      cel,
      ...(scopeFilter ? { scopeFilter } : {}),
      ...(options.total === false ? { total: false } : {}),
    }).catch((error: unknown) => {
      throw driverInputError(error) ?? error;
    });
    if (access) stripHidden(result.items, ast, access.profile);
    if (!hooks) return result;
    const after = { object: object.name, query: before.query, result, ctx };
    await runHooks(deps.hooks, 'data.afterFind', object.name, after);
    return after.result;
  }

  async function byId(object: ResolvedObject, id: string, options: GetOptions, ctx: DataContext, hooks: boolean, knex = knexFor(ctx)): Promise<DataRecord> {
    const query: Record<string, unknown> = { where: { id: { $eq: id } }, limit: 1 };
    if (options.select) query.select = options.select.includes('id') ? options.select : ['id', ...options.select];
    if (options.expand) query.expand = options.expand;
    // Engine ids never hold U+0000, which PostgreSQL refuses even as a parameter.
    const record = String(id).includes('\u0000') ? undefined : (await find(object, query, ctx, { total: false }, hooks, knex)).items[0];
    if (!record) throw codedError('NOT_FOUND', { what: `${object.label} '${String(id).slice(0, 64)}'`, object: object.name, id: String(id).slice(0, 64) });
    return record;
  }

  const engine: DataEngine = {
    query: (name, input, ctx, options = {}) => find(objectOrNotFound(deps, name), input, withUser(ctx), options, true),
    get: (name, id, options, ctx) => byId(objectOrNotFound(deps, name), id, options, withUser(ctx), true),
    create: (name, input, ctx) => granting(name, ctx, inTransaction(ctx, (scope) => createRecord(deps, scope, objectOrNotFound(deps, name), input, withUser(ctx)))),
    update: (name, id, patch, options, ctx) => granting(name, ctx, inTransaction(ctx, (scope) => updateRecord(deps, scope, objectOrNotFound(deps, name), id, patch, options, withUser(ctx)))),
    delete: (name, id, options, ctx) => granting(name, ctx, inTransaction(ctx, (scope) => deleteRecord(deps, scope, objectOrNotFound(deps, name), id, options, withUser(ctx)))),
    transaction: (ctx, work) => inTransaction(ctx, (scope) => work(scope.engine)),
    withDatabase: async (environmentId, work) => {
      const knex = knexFor({ environmentId, principal: null, system: true });
      return work({ knex, dialect: dialectOf(knex) });
    },
  };

  /** A committed write to the permission model or a share changes grants: drop the cached ones. */
  async function granting<T>(name: string, ctx: DataContext, write: Promise<T>): Promise<T> {
    if (!ACCESS_OBJECTS.has(name)) return write;
    try {
      return await write;
    } finally {
      deps.access?.invalidate(ctx.environmentId);
    }
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
    });
    const outer = binding ? knexFor(ctx) : deps.database(ctx.environmentId).knex;
    return outer.transaction((trx) =>
      work(scope(createDataEngine(deps, { environmentId: ctx.environmentId, trx }), trx)));
  }
  return engine;
}
