import type { Knex } from 'knex';
import type { DataContext, DataEngine, DataRecord, GetOptions, ListResult } from '../../../capabilities/dataEngine.ts';
import { codedError } from '../../../kernel/errors.ts';
import { executeQuery } from '../query/executeQuery.ts';
import { parseQuery } from '../query/parseQuery.ts';
import { celContext, objectOrNotFound, type EngineDeps } from './engineDeps.ts';
import { createRecord, deleteRecord, updateRecord } from './writeRecords.ts';
import { runHooks } from './runHooks.ts';

/** A transaction the engine is bound to: every call runs inside it. */
export interface Binding {
  environmentId: string;
  trx: Knex.Transaction;
}

/**
 * The data engine: every read and write of records goes through here, whatever the route.
 * Reads: beforeFind hooks, metadata-checked query, scope filter, afterFind hooks.
 * Writes: see writeRecords.ts; each runs in one transaction with its hooks.
 */
export function createDataEngine(deps: EngineDeps, binding?: Binding): DataEngine {
  const registry = { get: (name: string) => deps.metadata.object(name) };

  const knexFor = (ctx: DataContext): Knex => {
    if (binding) {
      if (binding.environmentId !== ctx.environmentId) {
        throw codedError('VALIDATION_ERROR', { summary: 'a transaction cannot span environments' });
      }
      return binding.trx;
    }
    return deps.database(ctx.environmentId).knex;
  };

  const engine: DataEngine = {
    async query(name, input, ctx, options = {}): Promise<ListResult> {
      const object = objectOrNotFound(deps, name);
      const cel = celContext(ctx);
      const before = { object: name, query: { ...input }, ctx };
      await runHooks(deps.hooks, 'data.beforeFind', name, before);
      const ast = parseQuery(before.query, object, registry, { cel });
      const scopeFilter = deps.scopeFilter?.(ctx);
      const result = await executeQuery(ast, knexFor(ctx), {
        cursorKey: deps.cursorKey(ctx.environmentId),
        cel,
        ...(scopeFilter ? { scopeFilter } : {}),
        ...(options.total === false ? { total: false } : {}),
      });
      const after = { object: name, query: before.query, result, ctx };
      await runHooks(deps.hooks, 'data.afterFind', name, after);
      return after.result;
    },

    async get(name, id, options: GetOptions, ctx): Promise<DataRecord> {
      const object = objectOrNotFound(deps, name);
      const query: Record<string, unknown> = { where: { id: { $eq: id } }, limit: 1 };
      if (options.select) query.select = options.select.includes('id') ? options.select : ['id', ...options.select];
      if (options.expand) query.expand = options.expand;
      const { items } = await engine.query(name, query, ctx, { total: false });
      const record = items[0];
      if (!record) throw codedError('NOT_FOUND', { what: `${object.label} '${String(id).slice(0, 64)}'`, object: name, id: String(id).slice(0, 64) });
      return record;
    },

    create: (name, input, ctx) => inTransaction(ctx, (tx, trx) => createRecord(deps, tx, trx, objectOrNotFound(deps, name), input, ctx)),
    update: (name, id, patch, options, ctx) => inTransaction(ctx, (tx, trx) => updateRecord(deps, tx, trx, objectOrNotFound(deps, name), id, patch, options, ctx)),
    delete: (name, id, options, ctx) => inTransaction(ctx, (tx, trx) => deleteRecord(deps, tx, trx, objectOrNotFound(deps, name), id, options, ctx)),
    transaction: (ctx, work) => inTransaction(ctx, (tx) => work(tx)),
  };

  // Nested calls (hooks writing through the engine they were given) join the open transaction.
  function inTransaction<T>(ctx: DataContext, work: (tx: DataEngine, trx: Knex.Transaction) => Promise<T>): Promise<T> {
    if (binding) {
      knexFor(ctx);
      return work(engine, binding.trx);
    }
    return deps.database(ctx.environmentId).knex.transaction((trx) =>
      work(createDataEngine(deps, { environmentId: ctx.environmentId, trx }), trx));
  }
  return engine;
}
