import { recordEnvironment } from '../../../metadata/cel/celEnvironment.ts';
import type { ResolvedObject } from '../../../metadata/types.ts';
import { resolveIn } from '../query/fieldScope.ts';
import type { CompareOp, Condition, FieldRef } from '../query/types.ts';

export interface PolicyUser {
  id: string;
  positions: string[];
  organizationId: string | null;
}

interface Node {
  op: string;
  args: unknown;
}

/** A partially evaluated sub-expression: a constant (the user is known at query time), a column, or a condition. */
type Part = { kind: 'const'; value: unknown } | { kind: 'field'; ref: FieldRef } | { kind: 'cond'; cond: Condition };

export const TRUE_CONDITION: Condition = { kind: 'and', items: [] };
export const FALSE_CONDITION: Condition = { kind: 'or', items: [] };

const COMPARE: Record<string, CompareOp> = { '==': 'eq', '!=': 'ne', '<': 'lt', '<=': 'lte', '>': 'gt', '>=': 'gte' };
const FLIP: Record<CompareOp, CompareOp> = { eq: 'eq', ne: 'ne', lt: 'gt', lte: 'gte', gt: 'lt', gte: 'lte' };

class Unsupported extends Error {}

/**
 * Compiles a row policy (CEL over `record` and `user`) into the engine's condition AST for one
 * user: everything about the user is folded into constants, everything about the record becomes a
 * column test, so the policy runs inside the SQL query, never row by row. The subset: `&&`, `||`,
 * `!`, comparisons between a record field and a value, `in` against a list or `user.positions`,
 * boolean fields, and constant sub-expressions over the user.
 */
export function compilePolicy(source: string, object: ResolvedObject, user: PolicyUser): Condition {
  const ast = recordEnvironment(object).parse(source).ast as unknown as Node;
  const part = compile(ast, object, user);
  return asCondition(part, object, source);
}

/** Whether a policy stays within the compilable subset; the reason when not. */
export function checkPolicy(source: string, object: ResolvedObject): string | null {
  try {
    compilePolicy(source, object, { id: 'probe', positions: [], organizationId: null });
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

function asCondition(part: Part, object: ResolvedObject, source: string): Condition {
  if (part.kind === 'cond') return part.cond;
  if (part.kind === 'const') return part.value === true ? TRUE_CONDITION : FALSE_CONDITION;
  if (part.ref.type !== 'boolean') throw new Unsupported(`'${source}': field '${part.ref.name}' of '${object.name}' is not a condition`);
  return { kind: 'compare', target: { kind: 'field', ref: part.ref }, op: 'eq', operand: { kind: 'value', value: true } };
}

function constant(value: unknown): unknown {
  return typeof value === 'bigint' ? Number(value) : value;
}

function compile(node: Node, object: ResolvedObject, user: PolicyUser): Part {
  const sub = (n: unknown) => compile(n as Node, object, user);
  const cond = (n: unknown) => asCondition(sub(n), object, '');
  switch (node.op) {
    case 'value':
      return { kind: 'const', value: constant(node.args) };
    case 'list':
      return { kind: 'const', value: (node.args as unknown[]).map((n) => constOf(sub(n))) };
    case 'id':
      if (node.args === 'user') return { kind: 'const', value: { id: user.id, positions: user.positions, organizationId: user.organizationId } };
      throw new Unsupported(`'${String(node.args)}' cannot be used in a row policy; use record.<field> and user.<id|positions|organizationId>`);
    case '.': {
      const [left, key] = node.args as [Node, string];
      if (left.op === 'id' && left.args === 'record') {
        const resolved = resolveIn(object, null, key, key);
        if (!resolved.ok) throw new Unsupported(resolved.message);
        return { kind: 'field', ref: resolved.ref };
      }
      const base = constOf(sub(left)) as Record<string, unknown> | null;
      return { kind: 'const', value: base && Object.hasOwn(base, key) ? base[key] : null };
    }
    case '&&':
    case '||': {
      const [a, b] = (node.args as unknown[]).map(sub) as [Part, Part];
      if (a.kind === 'const' && b.kind === 'const') return { kind: 'const', value: node.op === '&&' ? a.value === true && b.value === true : a.value === true || b.value === true };
      // A constant side decides or drops out: `x && true` is x, `x || true` is true.
      const known = a.kind === 'const' ? a : b.kind === 'const' ? b : null;
      const other = known === a ? b : a;
      if (known) {
        const decides = node.op === '&&' ? known.value !== true : known.value === true;
        return decides ? { kind: 'const', value: node.op === '||' } : other;
      }
      return { kind: 'cond', cond: { kind: node.op === '&&' ? 'and' : 'or', items: [asCondition(a, object, ''), asCondition(b, object, '')] } };
    }
    case '!_': {
      const inner = sub(node.args);
      if (inner.kind === 'const') return { kind: 'const', value: inner.value !== true };
      return { kind: 'cond', cond: { kind: 'not', item: cond(node.args) } };
    }
    case 'in': {
      const [a, b] = (node.args as unknown[]).map(sub) as [Part, Part];
      const list = constOf(b);
      if (!Array.isArray(list)) throw new Unsupported('the right side of `in` must be a list or user.positions');
      if (a.kind === 'const') return { kind: 'const', value: list.includes(a.value) };
      if (a.kind !== 'field') throw new Unsupported('the left side of `in` must be a record field or a value');
      return { kind: 'cond', cond: { kind: 'in', target: { kind: 'field', ref: a.ref }, values: list, negate: false } };
    }
    default: {
      const op = COMPARE[node.op];
      if (!op) throw new Unsupported(`operator '${node.op}' is not supported in row policies`);
      const [a, b] = (node.args as unknown[]).map(sub) as [Part, Part];
      if (a.kind === 'const' && b.kind === 'const') return { kind: 'const', value: compareConst(op, a.value, b.value) };
      const [field, other, flipped] = a.kind === 'field' ? [a, b, false] : b.kind === 'field' ? [b, a, true] : [null, null, false];
      if (!field || field.kind !== 'field' || !other) throw new Unsupported(`'${node.op}' must compare a record field with a value`);
      if (other.kind === 'field') return { kind: 'cond', cond: { kind: 'compare', target: { kind: 'field', ref: field.ref }, op, operand: { kind: 'field', ref: other.ref } } };
      const value = constOf(other);
      // A comparison with an absent user value (no organization, say) matches nothing: fail closed.
      if (value === null || value === undefined) return { kind: 'const', value: false };
      return { kind: 'cond', cond: { kind: 'compare', target: { kind: 'field', ref: field.ref }, op: flipped ? FLIP[op] : op, operand: { kind: 'value', value } } };
    }
  }
}

function constOf(part: Part): unknown {
  if (part.kind !== 'const') throw new Unsupported('only values and user attributes may be used here, not record fields');
  return part.value;
}

function compareConst(op: CompareOp, a: unknown, b: unknown): boolean {
  switch (op) {
    case 'eq': return a === b;
    case 'ne': return a !== b;
    case 'lt': return (a as number) < (b as number);
    case 'lte': return (a as number) <= (b as number);
    case 'gt': return (a as number) > (b as number);
    case 'gte': return (a as number) >= (b as number);
  }
}
