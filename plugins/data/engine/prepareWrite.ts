import type { DataContext, DataRecord } from '../../../capabilities/dataEngine.ts';
import type { HookRegistration } from '../../../capabilities/hooksRegistry.ts';
import type { ResolvedObject } from '../../../metadata/types.ts';
import type { EngineDeps } from './engineDeps.ts';
import { encodeValues, type EncodedValues } from './recordHistory.ts';
import type { PreparedByHandler } from './runHooks.ts';

/**
 * What of a create's or update's bookkeeping depends on nothing but the values the caller sent,
 * made before the write's transaction opens (on SQLite the transaction holds the one writer; on
 * PostgreSQL its locks): what the after-hooks' `prepare` answered (the search text of the values,
 * for one), and the JSON text of the text values for the history entry. Inside the transaction
 * these are only checked against the record as written (a before-hook may have changed a value:
 * then that part is made there) and written.
 */
export interface PreparedWork {
  hooks?: PreparedByHandler;
  history?: EncodedValues;
}

export const NOTHING_PREPARED: PreparedWork = Object.freeze({});

/** The work of a write of `values` (a create's coerced values, an update's coerced patch) to `object`, by `hook`'s handlers and the history. */
export function prepareWork(deps: EngineDeps, object: ResolvedObject, hook: 'data.afterInsert' | 'data.afterUpdate', values: DataRecord, ctx: DataContext): PreparedWork {
  let hooks: Map<HookRegistration, unknown> | undefined;
  for (const handler of deps.hooks.handlers(hook, object.name)) {
    if (!handler.prepare || handler.appliesTo?.(object.name, ctx.environmentId) === false) continue;
    (hooks ??= new Map()).set(handler, handler.prepare({ object: object.name, record: values, ctx }));
  }
  const history = object.enable?.trackHistory === true ? encodeValues(values) : undefined;
  if (!hooks && !history) return NOTHING_PREPARED;
  return { ...(hooks ? { hooks } : {}), ...(history ? { history } : {}) };
}
