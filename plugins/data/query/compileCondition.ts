import type { Dialect } from '../sql/dialect.ts';
import { SQLITE_LOWER, qualified } from '../sql/dialect.ts';
import type { Sql } from './sql.ts';
import { FALSE, TRUE, joinSql, sql } from './sql.ts';
import type { CompareOp, Condition, FieldRef, Operand, Target } from './types.ts';

export interface ConditionSqlContext {
  dialect: Dialect;
  /** SQL table name (or alias) holding a field of the given query alias (null: the scoped object). */
  tableOf(alias: string | null): string;
  /** having: the SQL expression of an aggregation alias. */
  aggregateSql?(alias: string): string;
}

const OPS: Record<Exclude<CompareOp, 'ne'>, string> = { eq: '=', gt: '>', gte: '>=', lt: '<', lte: '<=' };

/**
 * Compiles a condition to SQL. Negation is pushed down to the leaves, and each negated leaf is the
 * exact complement of its positive form with NULL counted as "no match": `$ne: 'x'` and
 * `$not: {f: 'x'}` both keep rows where f is null, the same on both drivers.
 */
export function compileCondition(node: Condition, ctx: ConditionSqlContext, negate = false): Sql {
  switch (node.kind) {
    case 'and':
    case 'or': {
      const parts = node.items.map((item) => compileCondition(item, ctx, negate));
      const and = node.kind === 'and' !== negate;
      return joinSql(parts, and ? 'and' : 'or');
    }
    case 'not':
      return compileCondition(node.item, ctx, !negate);
    case 'null': {
      const x = targetSql(node.target, ctx);
      return sql(`${x} is ${node.isNull !== negate ? '' : 'not '}null`);
    }
    case 'compare': {
      if (node.op === 'ne') return compileCondition({ ...node, op: 'eq' }, ctx, !negate);
      const x = targetSql(node.target, ctx);
      const y = operandSql(node.operand, ctx);
      return leaf(sql(`${x} ${OPS[node.op]} ${y.sql}`, ...y.bindings), [x, ...y.nullable], negate);
    }
    case 'in': {
      if (node.values.length === 0) return node.negate !== negate ? TRUE : FALSE;
      const x = targetSql(node.target, ctx);
      const positive = sql(`${x} in (${node.values.map(() => '?').join(', ')})`, ...node.values);
      return leaf(positive, [x], node.negate !== negate);
    }
    case 'between': {
      const x = targetSql(node.target, ctx);
      const low = operandSql(node.low, ctx);
      const high = operandSql(node.high, ctx);
      const positive = sql(`${x} between ${low.sql} and ${high.sql}`, ...low.bindings, ...high.bindings);
      return leaf(positive, [x, ...low.nullable, ...high.nullable], negate);
    }
    case 'text': {
      const x = targetSql(node.target, ctx);
      const lower = ctx.dialect === 'sqlite' ? SQLITE_LOWER : 'lower';
      const escaped = escapeLike(node.value.toLowerCase());
      const pattern = node.op === 'contains' ? `%${escaped}%` : node.op === 'startsWith' ? `${escaped}%` : `%${escaped}`;
      const positive = sql(`${lower}(${x}) like ? escape '\\'`, pattern);
      return leaf(positive, [x], node.negate !== negate);
    }
    case 'has': {
      const x = targetSql(node.target, ctx);
      const positive =
        ctx.dialect === 'sqlite'
          ? sql(`exists (select 1 from json_each(${x}) where json_each.value = ?)`, node.value)
          : sql(`${x} @> cast(? as jsonb)`, JSON.stringify([node.value]));
      return leaf(positive, [x], node.negate !== negate);
    }
  }
}

/** A null-rejecting test, or its complement that also takes the rows where an input is null. */
function leaf(positive: Sql, nullable: string[], negate: boolean): Sql {
  if (!negate) return positive;
  const nulls = [...new Set(nullable)].map((x) => `${x} is null`);
  return { sql: [`not (${positive.sql})`, ...nulls].join(' or '), bindings: positive.bindings };
}

export function fieldSql(ref: FieldRef, ctx: Pick<ConditionSqlContext, 'tableOf'>): string {
  return qualified(ctx.tableOf(ref.alias), ref.column);
}

function targetSql(target: Target, ctx: ConditionSqlContext): string {
  if (target.kind === 'field') return fieldSql(target.ref, ctx);
  if (!ctx.aggregateSql) throw new Error(`aggregate '${target.alias}' used outside having`);
  return ctx.aggregateSql(target.alias);
}

function operandSql(operand: Operand, ctx: ConditionSqlContext): Sql & { nullable: string[] } {
  if (operand.kind === 'field') {
    const x = fieldSql(operand.ref, ctx);
    return { sql: x, bindings: [], nullable: [x] };
  }
  return { sql: '?', bindings: [operand.value], nullable: [] };
}

/** Escapes LIKE wildcards so the operand matches literally. */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}
