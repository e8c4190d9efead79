import { operands, type CelNode, type Comprehension } from './celAst.ts';
import { CEL_LIMITS } from './celLimits.ts';
import { compilePattern } from './matchPattern.ts';

interface Estimate {
  /** Steps: nodes evaluated, a comprehension's step once per element. */
  cost: number;
  /** Elements, when the node is a list or map of a size known from the expression. */
  size: number | null;
}

/** Sizes of the variables `cel.bind()` introduced, innermost last. */
type Scope = ReadonlyMap<string, number | null>;

/**
 * The worst-case steps of a checked expression, before it runs: each node once, a comprehension's
 * step once per element of its range (a literal list's length, a list of unknown size
 * CEL_LIMITS.assumedListSize), so nested comprehensions multiply. Also compiles each literal
 * `matches()` pattern, so that a pattern RE2 refuses, or one that backtracks, fails here
 * (PatternError / CelCostError thrown).
 */
export function estimateCost(root: CelNode): number {
  return estimate(root, new Map()).cost;
}

function estimate(node: CelNode, scope: Scope): Estimate {
  const { alternate, macro } = node.meta;
  if (alternate) {
    const inner = estimate(alternate, scope);
    return { cost: inner.cost + 1, size: inner.size };
  }
  if (macro) {
    if (macro.val && macro.exp && macro.var) {
      const value = estimate(macro.val, scope);
      const body = estimate(macro.exp, new Map(scope).set(macro.var, value.size));
      return { cost: 1 + value.cost + body.cost, size: body.size };
    }
    return { cost: 1 + (macro.args?.length ?? 0) * 4, size: null };
  }
  switch (node.op) {
    case 'id':
      return { cost: 1, size: scope.get(node.args as string) ?? null };
    case 'list':
      return { cost: 1 + sum(operands(node), scope), size: (node.args as unknown[]).length };
    case 'map':
      return { cost: 1 + sum(operands(node), scope), size: (node.args as unknown[]).length };
    case 'comprehension': {
      const c = node.args as Comprehension;
      const range = estimate(c.iterable, scope);
      const n = range.size ?? CEL_LIMITS.assumedListSize;
      const init = estimate(c.init, scope);
      const step = estimate(c.step, new Map(scope).set(c.iterVarName, null));
      return { cost: 1 + range.cost + init.cost + n * (step.cost + 1), size: c.kind === 'quantifier' ? null : n };
    }
    case '+': {
      const [left, right] = (node.args as [CelNode, CelNode]).map((n) => estimate(n, scope)) as [Estimate, Estimate];
      const size = left.size === null && right.size === null ? null : (left.size ?? CEL_LIMITS.assumedListSize) + (right.size ?? CEL_LIMITS.assumedListSize);
      return { cost: 1 + left.cost + right.cost, size };
    }
    case '?:': {
      const [cond, left, right] = (node.args as CelNode[]).map((n) => estimate(n, scope)) as [Estimate, Estimate, Estimate];
      const size = left.size === null || right.size === null ? null : Math.max(left.size, right.size);
      return { cost: 1 + cond.cost + Math.max(left.cost, right.cost), size };
    }
    case 'rcall': {
      const [name, , args] = node.args as [string, CelNode, CelNode[]];
      const pattern = args[0];
      if (name === 'matches' && args.length === 1 && pattern?.op === 'value' && typeof pattern.args === 'string') compilePattern(pattern.args);
      return { cost: 1 + sum(operands(node), scope), size: null };
    }
    default:
      return { cost: 1 + sum(operands(node), scope), size: null };
  }
}

function sum(nodes: CelNode[], scope: Scope): number {
  let total = 0;
  for (const node of nodes) total += estimate(node, scope).cost;
  return total;
}
