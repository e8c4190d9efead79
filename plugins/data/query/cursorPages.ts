import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { NativeStatement } from '../sql/runNative.ts';
import { compileQuery } from './compileQuery.ts';
import { decodeCursor, queryShape, type CursorPosition } from './cursor.ts';
import type { ListPlan } from './listPlans.ts';
import type { ScopeFilter } from './types.ts';

/**
 * A cursor page of a planned list query: the page statement compiled once, with the bindings
 * that take the cursor's values. A page's SQL depends on its cursor only through which sort
 * values are NULL (`k is null` instead of `k = ?`, no range, no NULL part), so a list plan keeps
 * one per such pattern.
 */
export interface CursorPagePlan {
  page: NativeStatement;
  /** `[binding, value]`: bindings[binding] takes the cursor's values[value], or its id for -1. */
  slots: ReadonlyArray<readonly [number, number]>;
}

/** Stands for the cursor's values while a page is compiled: found by value among the bindings. */
const SLOT = `cursor-slot-${randomUUID()}`;
const ID = -1;

/** Which sort values of a cursor are NULL, as one key: `1` a value, `0` NULL. */
export function cursorPattern(position: CursorPosition): string {
  let pattern = '';
  for (const value of position.values) pattern += value === null ? '0' : '1';
  return pattern;
}

/**
 * The plan of `plan`'s page after a cursor like `position`, compiled on first use under the
 * caller's scope (the list plan is the caller's own); undefined when a slot cannot be found.
 */
export function cursorPageFor(plan: ListPlan, position: CursorPosition, knex: Knex, scopeFilter: ScopeFilter | undefined): CursorPagePlan | undefined {
  const pattern = cursorPattern(position);
  const pages = (plan.cursorPages ??= new Map());
  if (pages.has(pattern)) return pages.get(pattern) ?? undefined;
  const stand = { values: [...pattern].map((bit, i) => (bit === '1' ? `${SLOT}:${i}` : null)), id: `${SLOT}:id` };
  const compiled = compileQuery(plan.ast, knex, { ...(scopeFilter ? { scopeFilter } : {}), after: stand, fetch: plan.ast.limit + 1 });
  const { sql, bindings } = compiled.page.toSQL().toNative();
  const slots: Array<readonly [number, number]> = [];
  bindings.forEach((binding, i) => {
    if (typeof binding !== 'string' || !binding.startsWith(SLOT)) return;
    const which = binding.slice(SLOT.length + 1);
    slots.push([i, which === 'id' ? ID : Number(which)]);
  });
  // Every value the page compares with is bound where the cursor's values go, and the id once.
  const found = (value: number) => slots.some(([, v]) => v === value);
  const complete = slots.filter(([, v]) => v === ID).length === 1 && stand.values.every((v, i) => v === null || found(i));
  const page = complete ? { page: { sql, bindings: [...bindings] }, slots } : null;
  pages.set(pattern, page);
  return page ?? undefined;
}

/** The page statement with the cursor's values in their slots. */
export function bindCursor(page: CursorPagePlan, position: CursorPosition): NativeStatement {
  const bindings = page.page.bindings.slice();
  for (const [binding, value] of page.slots) bindings[binding] = value === ID ? position.id : position.values[value];
  return { sql: page.page.sql, bindings };
}

/**
 * The page of `plan` after `cursor`, the cursor checked as on any page (signature, query shape);
 * undefined when the plan cannot serve it (a query a cursor may not follow: the full path says why).
 */
export function plannedCursorPage(plan: ListPlan, cursor: string, knex: Knex, scopeFilter: ScopeFilter | undefined, cursorKey: string | Buffer): { after: CursorPosition; statement: NativeStatement } | undefined {
  if (!plan.ast.keyset || plan.ast.offset !== 0) return undefined;
  const after = decodeCursor(cursor, (plan.shape ??= queryShape(plan.ast)), plan.ast.orderBy.length, cursorKey);
  const page = cursorPageFor(plan, after, knex, scopeFilter);
  return page && { after, statement: bindCursor(page, after) };
}
