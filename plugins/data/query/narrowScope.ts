import type { ValueType } from '../sql/objectColumns.ts';
import type { Condition, Target } from './types.ts';

/** Types whose SQL equality is exact equality of the bound values (binary text, integers). */
const EXACT: ReadonlySet<ValueType> = new Set(['text', 'textarea', 'email', 'url', 'phone', 'select', 'lookup', 'integer']);

export type Truth = true | false | Condition;

/**
 * A row scope narrowed by what the query's own filter already fixes. Every row the query can
 * return satisfies each top-level `field = value` of its where, so a scope test of the same field
 * against a constant is known for all of them: `status in ('open', 'active')` is true when the
 * query asks for status 'open', false when it asks for 'closed'. The scope is then simpler
 * (often gone, or reduced to the owner test), which lets the database use the query's own index
 * instead of visiting rows it can never return.
 *
 * Only replaces a test by a constant that the fact decides for every such row; anything else is
 * kept as it is. Returns null when the scope admits every row the query can return.
 */
export function narrowScope(scope: Condition, where: Condition | null): Condition | null {
  const facts = equalities(where);
  if (facts.size === 0) return scope;
  return settled(decideScope(scope, (column, value) => (facts.has(column) ? facts.get(column) === value : undefined)));
}

/** A decided scope as a condition: null admits every row, an empty OR none. */
export function settled(truth: Truth): Condition | null {
  if (truth === true) return null;
  if (truth === false) return { kind: 'or', items: [] };
  return truth;
}

/** `column = value` facts of the top-level conjunction (the query's own object only). */
function equalities(where: Condition | null): Map<string, unknown> {
  const facts = new Map<string, unknown>();
  const visit = (node: Condition) => {
    if (node.kind === 'and') node.items.forEach(visit);
    else if (node.kind === 'compare' && node.op === 'eq' && node.target.kind === 'field' && node.target.ref.alias === null
      && EXACT.has(node.target.ref.type) && node.operand.kind === 'value' && isExactValue(node.operand.value)) {
      facts.set(node.target.ref.column, node.operand.value);
    }
  };
  if (where) visit(where);
  return facts;
}

export const isExactValue = (value: unknown): boolean => typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));

/**
 * Whether `column = value` holds for every row considered (true), for none (false), or is not
 * known (undefined). Asked only for exact-comparison columns of the scoped object and exact values.
 */
export type Known = (column: string, value: unknown) => boolean | undefined;

/**
 * The scope with every positive test that `known` decides replaced by its truth, simplified.
 * Tests under a `not` are left alone: a NULL column fails both a test and its negation, so only
 * the un-negated tests may read "unknown" as "false".
 */
export function decideScope(node: Condition, known: Known): Truth {
  switch (node.kind) {
    case 'and':
    case 'or': {
      const stop = node.kind === 'or';
      const kept: Condition[] = [];
      let changed = false;
      for (const item of node.items) {
        const truth = decideScope(item, known);
        if (typeof truth === 'boolean') {
          // true ends an OR, false ends an AND; the other value drops out.
          if (truth === stop) return stop;
          changed = true;
          continue;
        }
        if (truth !== item) changed = true;
        kept.push(truth);
      }
      if (kept.length === 0) return !stop;
      return changed ? { kind: node.kind, items: kept } : node;
    }
    case 'compare': {
      const column = exactColumn(node.target);
      if (column === null || node.op !== 'eq' || node.operand.kind !== 'value' || !isExactValue(node.operand.value)) return node;
      return known(column, node.operand.value) ?? node;
    }
    case 'in': {
      const column = exactColumn(node.target);
      if (column === null || node.negate || !node.values.every(isExactValue)) return node;
      const answers = node.values.map((value) => known(column, value));
      if (answers.includes(true)) return true;
      return answers.every((a) => a === false) ? false : node;
    }
    default:
      return node;
  }
}

/** The column of a test on the scoped object's own exact-comparison field, else null. */
export function exactColumn(target: Target): string | null {
  return target.kind === 'field' && target.ref.alias === null && EXACT.has(target.ref.type) ? target.ref.column : null;
}
