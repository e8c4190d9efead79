import type { ValueType } from '../sql/objectColumns.ts';
import type { Condition, Target } from './types.ts';

/** Types whose SQL equality is exact equality of the bound values (binary text, integers). */
const EXACT: ReadonlySet<ValueType> = new Set(['text', 'textarea', 'email', 'url', 'phone', 'select', 'lookup', 'integer']);

type Truth = true | false | Condition;

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
  const narrowed = decide(scope, facts);
  if (narrowed === true) return null;
  if (narrowed === false) return { kind: 'or', items: [] };
  return narrowed;
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

const isExactValue = (value: unknown): boolean => typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));

function decide(node: Condition, facts: Map<string, unknown>): Truth {
  switch (node.kind) {
    case 'and':
    case 'or': {
      const stop = node.kind === 'or';
      const kept: Condition[] = [];
      let changed = false;
      for (const item of node.items) {
        const truth = decide(item, facts);
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
      const known = factOf(node.target, facts);
      if (known === undefined || node.op !== 'eq' || node.operand.kind !== 'value' || !isExactValue(node.operand.value)) return node;
      return node.operand.value === known;
    }
    case 'in': {
      const known = factOf(node.target, facts);
      if (known === undefined || node.negate || !node.values.every(isExactValue)) return node;
      return node.values.includes(known);
    }
    default:
      return node;
  }
}

function factOf(target: Target, facts: Map<string, unknown>): unknown {
  if (target.kind !== 'field' || target.ref.alias !== null || !EXACT.has(target.ref.type)) return undefined;
  return facts.get(target.ref.column);
}
