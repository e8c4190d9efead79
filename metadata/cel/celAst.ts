/**
 * The parts of a checked cel-js AST that the cost estimate and the evaluation meter read. A node
 * evaluates as `node.evaluate(evaluator, node, context)`; a macro call (`all`, `map`, ...) evaluates
 * its expansion (`meta.alternate`, a `comprehension` node), `has()` and `cel.bind()` their macro
 * object (`meta.macro`).
 */
export type Evaluate = (ev: unknown, node: CelNode, ctx: unknown) => unknown;

export interface CelNode {
  op: string;
  args: unknown;
  evaluate: Evaluate;
  readonly meta: { alternate?: CelNode; macro?: CelMacro; evaluate: Evaluate };
}

/** `has(x.y)`: `args`; `cel.bind(v, val, exp)`: `var`, `val`, `exp`. */
export interface CelMacro {
  args?: CelNode[];
  var?: string;
  val?: CelNode;
  exp?: CelNode;
  evaluate: (ev: unknown, macro: CelMacro, ctx: unknown) => unknown;
}

export interface Comprehension {
  iterable: CelNode;
  init: CelNode;
  step: CelNode;
  iterVarName: string;
  kind?: string;
}

export function isCelNode(value: unknown): value is CelNode {
  return typeof value === 'object' && value !== null && typeof (value as CelNode).op === 'string' && 'args' in value;
}

/** The nodes a node evaluates directly, in its own terms (a macro call: none; see `meta`). */
export function operands(node: CelNode): CelNode[] {
  const args = node.args as unknown;
  switch (node.op) {
    case 'comprehension': {
      const c = args as Comprehension;
      return [c.iterable, c.init, c.step];
    }
    case 'call':
      return (args as [string, CelNode[]])[1];
    case 'rcall': {
      const [, receiver, rest] = args as [string, CelNode, CelNode[]];
      return [receiver, ...rest];
    }
    case 'map':
      return (args as Array<[CelNode, CelNode]>).flat();
    default:
      if (isCelNode(args)) return [args];
      return Array.isArray(args) ? args.filter(isCelNode) : [];
  }
}

/** Every node reachable from the root: operands, macro expansions and macro arguments, each once. */
export function everyNode(root: CelNode): CelNode[] {
  const seen = new Set<CelNode>();
  const stack = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (seen.has(node)) continue;
    seen.add(node);
    stack.push(...operands(node));
    const { alternate, macro } = node.meta;
    if (alternate) stack.push(alternate);
    if (macro) stack.push(...(macro.args ?? []).filter(isCelNode), ...[macro.val, macro.exp].filter(isCelNode));
  }
  return [...seen];
}
