import type { Environment, ParseResult } from '@marcbachmann/cel-js';
import type { RecordScope } from './celEnvironment.ts';
import { DATE_ARITHMETIC_HINT, explainCheckError, isTimeType, type Node } from './explainCheckError.ts';

export type Analysis =
  | { ok: true; type: string; run: ParseResult; referenced: ReadonlySet<string> | 'all' }
  | { ok: false; reason: string };

/**
 * Parses and type-checks an expression, then applies the rules CEL itself does not have:
 * no `+`/`-` on timestamps or durations. Type-checking once also means evaluation skips it.
 */
export function analyzeExpression(env: Environment, source: string, scope: RecordScope | null): Analysis {
  let run: ParseResult;
  try {
    run = env.parse(source);
  } catch (error) {
    return { ok: false, reason: explainCheckError(error, scope) };
  }
  const checked = run.check();
  if (!checked.valid) return { ok: false, reason: explainCheckError(checked.error, scope) };

  // cel-js stores each node's checked type on the node (`checkedType`); the rules below read it.
  const root = run.ast as unknown as Node;
  if (someNode(root, (n) => (n.op === '+' || n.op === '-') && (isTimeType(n) || (n.args as unknown[]).some(isTimeType)))) {
    return { ok: false, reason: DATE_ARITHMETIC_HINT };
  }
  return { ok: true, type: checked.type ?? 'dyn', run, referenced: referencedFields(root) };
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
