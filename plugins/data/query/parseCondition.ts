import type { ExpressionContext } from '../../../metadata/types.ts';
import { evaluateConstantExpression } from '../../../metadata/cel/evaluateConstant.ts';
import { codedError, isCodedError } from '../../../kernel/errors.ts';
import { QUERY_LIMITS } from './queryLimits.ts';
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

const { conditionDepth: MAX_DEPTH, conditionBranches: MAX_BRANCHES, conditionNodes: MAX_NODES, conditionValues: MAX_VALUES, inValues: MAX_IN_VALUES, operandLength: MAX_OPERAND, patternLength: MAX_PATTERN } = QUERY_LIMITS;
const COMPARE: Record<string, CompareOp> = { $eq: 'eq', $ne: 'ne', $gt: 'gt', $gte: 'gte', $lt: 'lt', $lte: 'lte' };
const TEXT: Record<string, TextOp> = { $contains: 'contains', $startsWith: 'startsWith', $endsWith: 'endsWith' };
const OPERATORS = ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$between', '$contains', '$notContains', '$startsWith', '$endsWith', '$null', '$exists'];

/** What one condition has used of its size limits (queryLimits.ts); past one, parsing stops. */
interface Size {
  nodes: number;
  values: number;
  over: boolean;
}

/**
 * Parses a filter condition; returns null for an empty one. Problems go to ctx.issues. A condition
 * over a size limit (depth, branches, nodes, bound values) gets one issue naming the limit and is
 * not parsed further.
 */
export function parseCondition(input: unknown, path: string, ctx: ConditionContext): Condition | null {
  return parseNode(input, path, ctx, 0, { nodes: 0, values: 0, over: false });
}

function overLimit(ctx: ConditionContext, size: Size, path: string, limit: keyof typeof QUERY_LIMITS, message: string): null {
  if (!size.over) ctx.issues.over(path, limit, QUERY_LIMITS[limit], message);
  size.over = true;
  return null;
}

/** Counts one node (and its bound values); false once the condition is over a limit. */
function count(ctx: ConditionContext, size: Size, path: string, values = 0): boolean {
  if (size.over) return false;
  size.nodes += 1;
  size.values += values;
  if (size.nodes > MAX_NODES) overLimit(ctx, size, path, 'conditionNodes', `a condition holds at most ${MAX_NODES} tests and operators; narrow it or split the request`);
  else if (size.values > MAX_VALUES) overLimit(ctx, size, path, 'conditionValues', `a condition binds at most ${MAX_VALUES} values in all ($in lists included); use fewer values`);
  return !size.over;
}

function parseNode(input: unknown, path: string, ctx: ConditionContext, depth: number, size: Size): Condition | null {
  if (size.over) return null;
  if (depth > MAX_DEPTH) return overLimit(ctx, size, path, 'conditionDepth', `conditions nest at most ${MAX_DEPTH} levels of $and, $or and $not`);
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
      if (value.length > MAX_BRANCHES) return overLimit(ctx, size, at, 'conditionBranches', `${key} takes at most ${MAX_BRANCHES} conditions, not ${value.length}; use $in for a list of values`);
      if (!count(ctx, size, at)) return null;
      const parts: Condition[] = [];
      for (let i = 0; i < value.length && !size.over; i++) {
        const part = parseNode(value[i], pathJoin(at, i), ctx, depth + 1, size);
        if (part) parts.push(part);
      }
      items.push({ kind: key === '$and' ? 'and' : 'or', items: parts });
    } else if (key === '$not') {
      if (!count(ctx, size, at)) return null;
      const inner = parseNode(value, at, ctx, depth + 1, size);
      if (inner) items.push({ kind: 'not', item: inner });
    } else if (key.startsWith('$')) {
      ctx.issues.add(at, `unknown logical operator '${key}': use $and, $or or $not, or a field name`);
    } else {
      if (!count(ctx, size, at, Array.isArray(value) ? value.length : isPlainObject(value) ? fieldValues(value) : 1)) return null;
      const target = ctx.resolveTarget(key, at);
      if (target) items.push(...parseFieldCondition(target, value, at, ctx));
    }
    if (size.over) return null;
  }
  if (items.length === 0) return null;
  return items.length === 1 ? items[0]! : { kind: 'and', items };
}

/** Values an operator map binds: each operator one, an `$in` list its length. */
function fieldValues(value: Record<string, unknown>): number {
  let n = 0;
  for (const key in value) {
    const operand = value[key];
    n += Array.isArray(operand) ? operand.length : 1;
  }
  return n;
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
      if (operand.length > MAX_IN_VALUES) {
        ctx.issues.over(path, 'inValues', MAX_IN_VALUES, `${op} takes at most ${MAX_IN_VALUES} values, not ${operand.length}`);
        return null;
      }
      if (family === 'multiselect') return refuse(`${op} does not apply to multiselect fields: use $contains`);
      const values: unknown[] = [];
      let ok = true;
      operand.forEach((v, i) => {
        if (longOperand(v, pathJoin(path, i), ctx)) {
          ok = false;
          return;
        }
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
      if (operand.length > MAX_PATTERN) {
        ctx.issues.over(path, 'patternLength', MAX_PATTERN, `${op} takes a text of at most ${MAX_PATTERN} characters, not ${operand.length}`);
        return null;
      }
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
      // Over a cost bound: the whole query is refused as too costly, not listed among its mistakes.
      if (isCodedError(error) && error.code === 'QUERY_TOO_COSTLY') throw codedError('QUERY_TOO_COSTLY', { ...error.details, path: pathJoin(path, '$cel') });
      const reason = isCodedError(error) && typeof error.details.reason === 'string' ? error.details.reason : (error as Error).message;
      return issue(ctx, pathJoin(path, '$cel'), `the expression is not valid: ${reason}`);
    }
    const checked = fromComputed(type, computed);
    if (!checked.ok) return issue(ctx, pathJoin(path, '$cel'), `the expression's result does not fit: ${checked.message}`);
    return { kind: 'cel', source, value: checked.value };
  }
  if (longOperand(operand, path, ctx)) return null;
  const checked = checkValue(type, operand);
  if (!checked.ok) return issue(ctx, path, checked.message);
  return { kind: 'value', value: checked.value };
}

/** A text operand over the length limit: an issue naming it. */
function longOperand(value: unknown, path: string, ctx: ConditionContext): boolean {
  if (typeof value !== 'string' || value.length <= MAX_OPERAND) return false;
  ctx.issues.over(path, 'operandLength', MAX_OPERAND, `a text operand holds at most ${MAX_OPERAND} characters, not ${value.length}`);
  return true;
}

function issue(ctx: ConditionContext, path: string, message: string): null {
  ctx.issues.add(path, message);
  return null;
}
