import type { Knex } from 'knex';
import type { ResolvedObject } from '../../../metadata/types.ts';
import type { NativeStatement } from '../sql/runNative.ts';
import type { ValueType } from '../sql/objectColumns.ts';
import type { CursorPagePlan } from './cursorPages.ts';
import { compileQuery } from './compileQuery.ts';
import { COUNT_CAP } from './countCap.ts';
import { countIdentity } from './cursor.ts';
import type { QueryAst, ScopeFilter } from './types.ts';

/**
 * A list query parsed and compiled once for one caller: its AST, its page and count statements
 * in the driver's own form, and what its next cursor is made of.
 */
export interface ListPlan {
  ast: QueryAst;
  page: NativeStatement;
  count: NativeStatement;
  /** `count` bounded: at most COUNT_CAP + 1 matches counted (count=capped). */
  countCapped: NativeStatement;
  /** Identity of what `count` counts, for a total carried in a cursor (countIdentity, cursor.ts). */
  countKey: string;
  /** Type of each `__k<i>` sort value of the page, for the next cursor. */
  sortKeyTypes: ValueType[];
  /** The query's shape hash (cursor.ts), computed on first need. */
  shape?: string;
  /** The query's cost shape (cursor.ts costShape: no values), computed on first need. */
  costShape?: string;
  /** The keys of `page` and `count` in the count cache (countCache.ts), made on first need. */
  keys?: { page: string; count: string; countCapped: string };
  /** Its pages after a cursor, by which cursor values are NULL (cursorPages.ts); null where none can be planned. */
  cursorPages?: Map<string, CursorPagePlan | null>;
}

export interface ListPlans {
  /** `owner` as for ByIdPlans: a caller's access profile, or an environment's anonymous key. */
  get(owner: object, object: ResolvedObject, key: string): ListPlan | undefined;
  set(owner: object, object: ResolvedObject, key: string, plan: ListPlan): void;
}

/** Plans kept per owner and object; past this many, the oldest goes. */
export const LIST_PLANS_PER_OBJECT = 32;

/**
 * Plans of list queries, kept as long as their owner lives (an access profile is rebuilt when
 * grants change or expire, which drops its plans) and their object's metadata (a reload makes new
 * objects). A caller sending ever new queries keeps at most LIST_PLANS_PER_OBJECT per object.
 */
export function createListPlans(limit = LIST_PLANS_PER_OBJECT): ListPlans {
  const plans = new WeakMap<object, WeakMap<ResolvedObject, Map<string, ListPlan>>>();
  return {
    get: (owner, object, key) => plans.get(owner)?.get(object)?.get(key),
    set(owner, object, key, plan) {
      let byObject = plans.get(owner);
      if (!byObject) plans.set(owner, (byObject = new WeakMap()));
      let byKey = byObject.get(object);
      if (!byKey) byObject.set(object, (byKey = new Map()));
      if (byKey.size >= limit) byKey.delete(byKey.keys().next().value!);
      byKey.set(key, plan);
    },
  };
}

/** Query keys whose presence leaves a query unplanned (see listPlanKey). */
const UNPLANNED = ['cursor'];

/** Whether a list query names joins (any value but an empty one: a malformed one fails its parse). */
export function hasJoins(query: Record<string, unknown>): boolean {
  const joins = query.joins;
  return joins !== undefined && joins !== null && joins !== '' && !(Array.isArray(joins) && joins.length === 0);
}

/**
 * The key a list query (aggregations and distinct reads included) is planned under, or null when
 * it may not be planned: a cursor (a page after one is planned in the plan of its query without
 * it, cursorPages.ts), or a `{$cel}` operand anywhere (evaluated when the query is parsed, against
 * the clock and the user). The key is the query's JSON text.
 */
export function listPlanKey(query: Record<string, unknown>): string | null {
  for (const key of UNPLANNED) if (query[key] !== undefined && query[key] !== null && query[key] !== '') return null;
  let text: string;
  try {
    text = JSON.stringify(query);
  } catch {
    return null;
  }
  return text.includes('$cel') || text.length > 4000 ? null : text;
}

/** The plan of list query `key` of `object` for `owner` (its AST parsed when new), made on first use. */
export function listPlanFor(plans: ListPlans, object: ResolvedObject, owner: object, key: string, knex: Knex, parsed: () => QueryAst, scopeFilter: ScopeFilter | undefined): ListPlan {
  const known = plans.get(owner, object, key);
  if (known) return known;
  const ast = parsed();
  const compiled = compileQuery(ast, knex, { ...(scopeFilter ? { scopeFilter } : {}), fetch: ast.limit + 1 });
  const native = (query: Knex.QueryBuilder) => {
    const { sql, bindings } = query.toSQL().toNative();
    return { sql, bindings: [...bindings] };
  };
  const plan: ListPlan = { ast, page: native(compiled.page), count: native(compiled.count()), countCapped: native(compiled.countUpTo(COUNT_CAP)), countKey: countIdentity(native(compiled.countKey())), sortKeyTypes: compiled.sortKeyTypes };
  plans.set(owner, object, key, plan);
  return plan;
}
