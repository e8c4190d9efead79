import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { ResolvedObject } from '../../../metadata/types.ts';
import { compileQuery } from './compileQuery.ts';
import type { QueryAst, ScopeFilter } from './types.ts';

/** Stands for the id while a by-id read is planned: found by value among the compiled bindings. */
export const ID_SLOT = `id-slot-${randomUUID()}`;

/** A by-id read parsed and compiled once: its AST and page statement, the id at `bindings[slot]`. */
export interface ByIdPlan {
  ast: QueryAst;
  sql: string;
  bindings: readonly unknown[];
  slot: number;
  /** Its select list as a write's `returning` clause (compileQuery.ts returningColumns), made on first use. */
  returning?: string;
}

export interface ByIdPlans {
  /** `owner` is what the plan was made for (a caller's access profile, or an environment's anonymous key). */
  get(owner: object, object: ResolvedObject): ByIdPlan | undefined;
  set(owner: object, object: ResolvedObject, plan: ByIdPlan): void;
  /** The owner standing for callers without an access profile (one per key: environment, engine work or not). */
  anonymous(key: string): object;
}

/**
 * Plans of plain by-id reads (no select, expand or beforeFind hooks), kept as long as their owner
 * lives: an access profile is rebuilt when grants change or expire, which drops its plans with it.
 */
export function createByIdPlans(): ByIdPlans {
  const plans = new WeakMap<object, WeakMap<ResolvedObject, ByIdPlan>>();
  const anonymous = new Map<string, object>();
  return {
    get: (owner, object) => plans.get(owner)?.get(object),
    set(owner, object, plan) {
      let byObject = plans.get(owner);
      if (!byObject) plans.set(owner, (byObject = new WeakMap()));
      byObject.set(object, plan);
    },
    anonymous(key) {
      let owner = anonymous.get(key);
      if (!owner) anonymous.set(key, (owner = {}));
      return owner;
    },
  };
}

/** The plan's bindings with the id in its slot. */
export function bindId(plan: ByIdPlan, id: string): unknown[] {
  const bindings = plan.bindings.slice();
  bindings[plan.slot] = id;
  return bindings;
}

/** The plan of a plain by-id read of `object` for `owner`, made on first use; undefined if the id has no single slot. */
export function planFor(plans: ByIdPlans, object: ResolvedObject, owner: object, knex: Knex, parse: (query: Record<string, unknown>) => QueryAst, scopeFilter: ScopeFilter | undefined): ByIdPlan | undefined {
  const known = plans.get(owner, object);
  if (known) return known;
  const ast = parse({ where: { id: { $eq: ID_SLOT } }, limit: 1 });
  const { sql, bindings } = compileQuery(ast, knex, { ...(scopeFilter ? { scopeFilter } : {}), fetch: ast.limit + 1, narrow: false }).page.toSQL().toNative();
  const slots = bindings.flatMap((value, i) => (value === ID_SLOT ? [i] : []));
  if (slots.length !== 1) return undefined;
  const plan = { ast, sql, bindings, slot: slots[0]! };
  plans.set(owner, object, plan);
  return plan;
}
