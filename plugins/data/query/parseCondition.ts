import type { ExpressionContext } from '../../../metadata/types.ts';
import { evaluateConstantExpression } from '../../../metadata/cel/evaluateConstant.ts';
import { isCodedError } from '../../../kernel/errors.ts';
import type { ValueType } from '../sql/objectColumns.ts';
import { checkValue, familyOf, fromComputed } from './operandTypes.ts';
import type { QueryIssues } from './queryErrors.ts';
import { isPlainObject, pathJoin, show } from './queryErrors.ts';
import type { CompareOp, Condition, FieldRef, Operand, Target, TextOp } from './types.ts';

/** What a condition may name: fields (where) or aggregation aliases and group keys (having). */
export interface ConditionContext {
  issues: QueryIssues;
  /** Resolves a key of a condition object; records an issue and returns null when unknown. */
  resolveTarget(key: string, path: string): Target | null;
  /** Resolves `{$field: name}`; absent where field operands are not allowed. */
  resolveField?(name: unknown, path: string): FieldRef | null;
  /** Clock and user for `{$cel}` operands. */
  cel?: ExpressionContext;
}

const MAX_DEPTH = 64;
/** Keeps one condition well under the drivers' bound-parameter limits (PostgreSQL: 65535). */
const MAX_IN_VALUES = 1000;
const COMPARE: Record<string, CompareOp> = { $eq: 'eq', $ne: 'ne', $gt: 'gt', $gte: 'gte', $lt: 'lt', $lte: 'lte' };
const TEXT: Record<string, TextOp> = { $contains: 'contains', $startsWith: 'startsWith', $endsWith: 'endsWith' };
const OPERATORS = ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$between', '$contains', '$notContains', '$startsWith', '$endsWith', '$null', '$exists'];

/** Parses a filter condition; returns null for an empty one. Problems go to ctx.issues. */
export function parseCondition(input: unknown, path: string, ctx: ConditionContext, depth = 0): Condition | null {
  if (depth > MAX_DEPTH) {
    ctx.issues.add(path, `conditions nest deeper than ${MAX_DEPTH} levels`);
    return null;
  }
  if (!isPlainObject(input)) {
    ctx.issues.add(path, 'a condition must be an object such as {"status": "open"}');
    return null;
  }
  const items: Condition[] = [];
  for (const [key, value] of Object.entries(input)) {
    const at = pathJoin(path, key);
    if (key === '$and' || key === '$or') {
      if (!Array.isArray(value)) {
        ctx.issues.add(at, `${key} takes an array of conditions`);
        continue;
      }
      const parts = value.map((v, i) => parseCondition(v, pathJoin(at, i), ctx, depth + 1)).filter((c): c is Condition => c !== null);
      items.push({ kind: key === '$and' ? 'and' : 'or', items: parts });
    } else if (key === '$not') {
      const inner = parseCondition(value, at, ctx, depth + 1);
      if (inner) items.push({ kind: 'not', item: inner });
    } else if (key.startsWith('$')) {
      ctx.issues.add(at, `unknown logical operator '${key}': use $and, $or or $not, or a field name`);
    } else {
      const target = ctx.resolveTarget(key, at);
      if (target) items.push(...parseFieldCondition(target, value, at, ctx));
    }
  }
  if (items.length === 0) return null;
  return items.length === 1 ? items[0]! : { kind: 'and', items };
}

function targetType(target: Target): ValueType {
  return target.kind === 'field' ? target.ref.type : target.type;
}

function parseFieldCondition(target: Target, value: unknown, path: string, ctx: ConditionContext): Condition[] {
  const isOperatorMap = isPlainObject(value) && Object.keys(value).length > 0 && Object.keys(value).every((k) => k.startsWith('$'));
  if (!isOperatorMap || Object.hasOwn(value, '$field') || Object.hasOwn(value, '$cel')) {
    // A bare value means $eq.
    if (Array.isArray(value)) {
      ctx.issues.add(path, 'an array is not a value: use {"$in": [...]}');
      return [];
    }
    const c = parseOperator(target, '$eq', value, path, ctx);
    return c ? [c] : [];
  }
  const out: Condition[] = [];
  for (const [op, operand] of Object.entries(value)) {
    const c = parseOperator(target, op, operand, pathJoin(path, op), ctx);
    if (c) out.push(c);
  }
  return out;
}

function parseOperator(target: Target, op: string, operand: unknown, path: string, ctx: ConditionContext): Condition | null {
  const type = targetType(target);
  const family = familyOf(type);
  const refuse = (message: string) => {
    ctx.issues.add(path, message);
    return null;
  };
  if (target.kind === 'field' && target.ref.type === 'json' && op !== '$null' && op !== '$exists') {
    return refuse('json fields can only be tested with $null or $exists');
  }
  if (op in COMPARE) {
    const cmp = COMPARE[op]!;
    if (operand === null) {
      if (cmp === 'eq' || cmp === 'ne') return { kind: 'null', target, isNull: cmp === 'eq' };
      return refuse(`${op} needs a value, not null`);
    }
    if (family === 'multiselect') return refuse(`${op} does not apply to multiselect fields: use $contains or $null`);
    if (family === 'boolean' && cmp !== 'eq' && cmp !== 'ne') return refuse(`${op} does not apply to boolean fields: use $eq or $ne`);
    const parsed = parseOperand(type, operand, path, ctx);
    return parsed ? { kind: 'compare', target, op: cmp, operand: parsed } : null;
  }
  switch (op) {
    case '$in':
    case '$nin': {
      if (!Array.isArray(operand)) return refuse(`${op} takes an array of values, not ${show(operand)}`);
      if (operand.length > MAX_IN_VALUES) return refuse(`${op} takes at most ${MAX_IN_VALUES} values, not ${operand.length}`);
      if (family === 'multiselect') return refuse(`${op} does not apply to multiselect fields: use $contains`);
      const values: unknown[] = [];
      let ok = true;
      operand.forEach((v, i) => {
        const checked = checkValue(type, v);
        if (checked.ok) values.push(checked.value);
        else {
          ok = false;
          ctx.issues.add(pathJoin(path, i), checked.message);
        }
      });
      return ok ? { kind: 'in', target, values, negate: op === '$nin' } : null;
    }
    case '$between': {
      if (!Array.isArray(operand) || operand.length !== 2) return refuse('$between takes an array of exactly two values [low, high]');
      if (family === 'boolean' || family === 'multiselect') return refuse(`$between does not apply to ${type} fields`);
      const low = parseOperand(type, operand[0], pathJoin(path, 0), ctx);
      const high = parseOperand(type, operand[1], pathJoin(path, 1), ctx);
      return low && high ? { kind: 'between', target, low, high } : null;
    }
    case '$contains':
    case '$notContains':
    case '$startsWith':
    case '$endsWith': {
      if (typeof operand !== 'string') return refuse(`${op} takes a string, not ${show(operand)}`);
      if (operand.includes('\u0000')) return refuse('text values cannot contain the NUL character');
      if (family === 'multiselect' && (op === '$contains' || op === '$notContains')) {
        return { kind: 'has', target, value: operand, negate: op === '$notContains' };
      }
      if (family !== 'text') return refuse(`${op} applies to text fields, not to a ${type} field`);
      const textOp = op === '$notContains' ? 'contains' : TEXT[op]!;
      return { kind: 'text', target, op: textOp, value: operand, negate: op === '$notContains' };
    }
    case '$null':
    case '$exists':
      if (typeof operand !== 'boolean') return refuse(`${op} takes true or false, not ${show(operand)}`);
      return { kind: 'null', target, isNull: op === '$null' ? operand : !operand };
    default:
      return refuse(`unknown operator '${op}'; operators are ${OPERATORS.join(', ')}`);
  }
}

/** A comparison operand: a value of the target's type, `{$field: name}` or `{$cel: "..."}`. */
function parseOperand(type: ValueType, operand: unknown, path: string, ctx: ConditionContext): Operand | null {
  if (isPlainObject(operand) && Object.hasOwn(operand, '$field')) {
    if (Object.keys(operand).length !== 1) return issue(ctx, path, '{$field} takes no other keys');
    if (!ctx.resolveField) return issue(ctx, path, '{$field} is not allowed here');
    const ref = ctx.resolveField(operand.$field, pathJoin(path, '$field'));
    if (!ref) return null;
    if (familyOf(ref.type) !== familyOf(type) || familyOf(type) === 'json' || familyOf(type) === 'multiselect') {
      return issue(ctx, pathJoin(path, '$field'), `field '${ref.alias ? ref.alias + '.' : ''}${ref.name}' (${ref.type}) cannot be compared with a ${type} field`);
    }
    return { kind: 'field', ref };
  }
  if (isPlainObject(operand) && Object.hasOwn(operand, '$cel')) {
    if (Object.keys(operand).length !== 1) return issue(ctx, path, '{$cel} takes no other keys');
    const source = operand.$cel;
    if (typeof source !== 'string' || source.trim() === '') return issue(ctx, pathJoin(path, '$cel'), '$cel takes a CEL expression string');
    if (source.length > 2000) return issue(ctx, pathJoin(path, '$cel'), 'the expression is longer than 2000 characters');
    let computed: unknown;
    try {
      computed = evaluateConstantExpression(source, ctx.cel);
    } catch (error) {
      const reason = isCodedError(error) && typeof error.details.reason === 'string' ? error.details.reason : (error as Error).message;
      return issue(ctx, pathJoin(path, '$cel'), `the expression is not valid: ${reason}`);
    }
    const checked = fromComputed(type, computed);
    if (!checked.ok) return issue(ctx, pathJoin(path, '$cel'), `the expression's result does not fit: ${checked.message}`);
    return { kind: 'cel', source, value: checked.value };
  }
  const checked = checkValue(type, operand);
  if (!checked.ok) return issue(ctx, path, checked.message);
  return { kind: 'value', value: checked.value };
}

function issue(ctx: ConditionContext, path: string, message: string): null {
  ctx.issues.add(path, message);
  return null;
}
