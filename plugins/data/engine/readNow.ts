import type { DataContext, DataRecord } from '../../../capabilities/dataEngine.ts';
import type { ResolvedObject } from '../../../metadata/types.ts';
import { stripHidden, requireAction } from '../access/enforceAccess.ts';
import { bindId } from '../query/byIdPlans.ts';
import { recordDecoder } from '../query/executeQuery.ts';
import { directReader } from '../sql/sqliteReader.ts';
import { driverInputError } from './driverInputError.ts';
import { hideInvisibleIn } from './hideInvisibleIn.ts';
import { accessKnown, appliesTo, celContext, planOwner, type EngineDeps } from './engineDeps.ts';

/**
 * A plain read by id (no select or expand, outside a transaction) answered without waiting, when
 * everything it needs is at hand: the SQLite file's reader, the plan an earlier read made for this
 * caller, the caller's access profile already built, no find hooks on the object and no scope
 * contributed for this call that applies to the object. The checks are those of the engine's get:
 * read permission (a refusal is thrown), the caller's row scope inside the plan, hidden fields
 * stripped. Null when the planned read finds no visible record with the id; undefined when anything
 * is missing: the caller then asks the engine's get, which waits for what is missing.
 */
export function readNow(deps: EngineDeps, object: ResolvedObject, id: string, ctx: DataContext): DataRecord | null | undefined {
  if (!deps.plans || id.includes('\u0000')) return undefined;
  const read = directReader(deps.database(ctx.environmentId).knex);
  if (!read || deps.hooks.handlers('data.beforeFind', object.name).length > 0 || deps.hooks.handlers('data.afterFind', object.name).length > 0) return undefined;
  const access = accessKnown(deps, ctx);
  if (access === undefined || appliesTo(deps.scopeFilter?.(ctx), object)) return undefined;
  if (access) requireAction(access.profile, access.principal, object, 'read');
  const plan = deps.plans.get(planOwner(deps.plans, access?.profile, ctx), object);
  if (!plan) return undefined;
  let rows: Array<Record<string, unknown>>;
  try {
    rows = read({ sql: plan.sql, bindings: bindId(plan, id) });
  } catch (error) {
    throw driverInputError(error) ?? error;
  }
  if (rows.length === 0) return null;
  const items = [recordDecoder(plan.ast, 'sqlite', plan.ast.formulas.length > 0 ? celContext(ctx) : undefined)(rows[0]!)];
  if (!ctx.system) hideInvisibleIn(items, plan.ast, celContext(ctx));
  if (access) stripHidden(items, plan.ast, access.profile);
  return items[0];
}
