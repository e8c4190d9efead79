import type { Environment, ParseResult } from '@marcbachmann/cel-js';
import type { CelNode } from './celAst.ts';
import type { RecordScope } from './celEnvironment.ts';
import { CEL_LIMITS, estimatedTooCostly, isCelCostError, tooLong, type CelCostError } from './celLimits.ts';
import { estimateCost } from './estimateCost.ts';
import { DATE_ARITHMETIC_HINT, explainCheckError, isTimeType, type Node } from './explainCheckError.ts';
import { PatternError } from './matchPattern.ts';
import { instrument, metered } from './meterEvaluation.ts';

/** Evaluates a checked expression with its variables, within the cost bounds (CEL_LIMITS); a CelCostError past them. */
export type RunExpression = (context: Record<string, unknown>) => unknown;

export type Analysis =
  | { ok: true; type: string; run: RunExpression; referenced: ReadonlySet<string> | 'all' }
  | { ok: false; reason: string; costly?: CelCostError };

/**
 * Parses and type-checks an expression, then applies the rules CEL itself does not have:
 * no `+`/`-` on timestamps or durations, a `matches()` pattern RE2 accepts and that cannot backtrack
 * exponentially, and an estimated cost within CEL_LIMITS.maxCost. Type-checking once also means
 * evaluation skips it. The one place every CEL expression of the runtime is compiled: its `run`
 * evaluates under the step and time bounds.
 */
export function analyzeExpression(env: Environment, source: string, scope: RecordScope | null): Analysis {
  if (source.length > CEL_LIMITS.sourceLength) {
    const costly = tooLong(source.length);
    return { ok: false, reason: `too costly: ${costly.message}`, costly };
  }
  let run: ParseResult;
  try {
    run = env.parse(source);
  } catch (error) {
    return { ok: false, reason: explainCheckError(error, scope) };
  }
  if (readsTenantId(run.ast as unknown as Node)) return { ok: false, reason: TENANT_ID_RENAMED };
  const checked = run.check();
  if (!checked.valid) return { ok: false, reason: explainCheckError(checked.error, scope) };

  // cel-js stores each node's checked type on the node (`checkedType`); the rules below read it.
  const root = run.ast as unknown as Node;
  if (someNode(root, (n) => (n.op === '+' || n.op === '-') && (isTimeType(n) || (n.args as unknown[]).some(isTimeType)))) {
    return { ok: false, reason: DATE_ARITHMETIC_HINT };
  }
  const celRoot = run.ast as unknown as CelNode;
  let cost: number;
  try {
    cost = estimateCost(celRoot);
  } catch (error) {
    if (error instanceof PatternError) return { ok: false, reason: error.message };
    if (isCelCostError(error)) return { ok: false, reason: `too costly: ${error.message}`, costly: error };
    throw error;
  }
  if (cost > CEL_LIMITS.maxCost) {
    const costly = estimatedTooCostly(cost);
    return { ok: false, reason: `too costly: ${costly.message}`, costly };
  }
  instrument(celRoot);
  const evaluate: RunExpression = (context) => metered(() => run(context));
  return { ok: true, type: checked.type ?? 'dyn', run: evaluate, referenced: referencedFields(root) };
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && typeof (value as Node).op === 'string' && 'args' in value;
}

function children(node: Node): Node[] {
  const out: Node[] = [];
  const visit = (value: unknown): void => {
    if (isNode(value)) out.push(value);
    else if (Array.isArray(value)) value.forEach(visit);
  };
  visit(node.args);
  return out;
}

/** The name expressions of older releases used for the caller's organization. */
export const TENANT_ID_RENAMED = "'tenantId' is no longer defined: the caller's organization is user.organizationId (write user.organizationId instead of tenantId or user.tenantId)";

/** `tenantId`, `user.tenantId` or `user["tenantId"]`: refused at load with the name to use, not left to fail at run time. */
function readsTenantId(root: Node): boolean {
  return someNode(root, (n) => {
    if (n.op === 'id') return n.args === 'tenantId';
    if (!['.', '.?', '[]', '[?]'].includes(n.op) || !Array.isArray(n.args)) return false;
    const [left, key] = n.args as [Node, unknown];
    const name = typeof key === 'string' ? key : isNode(key) && key.op === 'value' ? key.args : null;
    return name === 'tenantId' && left.op === 'id' && left.args === 'user';
  });
}

function someNode(node: Node, test: (n: Node) => boolean): boolean {
  return test(node) || children(node).some((child) => someNode(child, test));
}

/** Fields read as `record.x` / `record["x"]`; 'all' when `record` is used as a whole. */
function referencedFields(root: Node): ReadonlySet<string> | 'all' {
  const fields = new Set<string>();
  let whole = false;
  const visit = (node: Node): void => {
    if ((node.op === '.' || node.op === '.?' || node.op === '[]' || node.op === '[?]') && Array.isArray(node.args)) {
      const [left, key] = node.args as [Node, unknown];
      if (left.op === 'id' && left.args === 'record') {
        const name = typeof key === 'string' ? key : isNode(key) && key.op === 'value' && typeof key.args === 'string' ? key.args : null;
        if (name !== null) {
          fields.add(name);
          return;
        }
      }
    }
    if (node.op === 'id' && node.args === 'record') whole = true;
    children(node).forEach(visit);
  };
  visit(root);
  return whole ? 'all' : fields;
}
