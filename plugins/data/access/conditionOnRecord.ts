import type { DataRecord } from '../../../capabilities/dataEngine.ts';
import { familyOf } from '../query/operandTypes.ts';
import type { CompareOp, Condition, FieldRef, Operand, Target } from '../query/types.ts';

/**
 * What a condition (a row scope, a where) says of one record from its own values, as the SQL that
 * compileCondition.ts makes would say it: true or false where the values alone decide it the same on
 * both drivers, undefined where they may not. Decided: equality and `in` of text and number fields,
 * order of numbers, null tests, and/or/not over them. Not decided (undefined): joined fields, dates,
 * booleans, currency, text order and matching (collations, case folding), multiselect, json, a
 * field the record does not hold, values of two kinds.
 *
 * Null follows compileCondition: a test of a null field is false, its negation true.
 */
export function conditionOnRecord(node: Condition, record: DataRecord): boolean | undefined {
  switch (node.kind) {
    case 'and': {
      let all: boolean | undefined = true;
      for (const item of node.items) {
        const value = conditionOnRecord(item, record);
        if (value === false) return false;
        if (value === undefined) all = undefined;
      }
      return all;
    }
    case 'or': {
      let any: boolean | undefined = false;
      for (const item of node.items) {
        const value = conditionOnRecord(item, record);
        if (value === true) return true;
        if (value === undefined) any = undefined;
      }
      return any;
    }
    case 'not': {
      const value = conditionOnRecord(node.item, record);
      return value === undefined ? undefined : !value;
    }
    case 'null': {
      const value = targetValue(node.target, record);
      if (value === UNKNOWN) return undefined;
      return (value === null) === node.isNull;
    }
    case 'compare': {
      const x = targetValue(node.target, record);
      const y = operandValue(node.operand, record);
      if (x === UNKNOWN || y === UNKNOWN) return undefined;
      // A null value (not a field) binds NULL: SQL then answers neither a test nor its negation.
      if (y === null && node.operand.kind !== 'field') return undefined;
      if (x === null || y === null) return node.op === 'ne';
      return compare(x, node.op, y);
    }
    case 'in': {
      const x = targetValue(node.target, record);
      if (x === UNKNOWN) return undefined;
      if (node.values.length === 0) return node.negate;
      if (x === null) return node.negate;
      if (!node.values.every((v) => sameKind(x, v))) return undefined;
      return node.values.some((v) => v === x) !== node.negate;
    }
    case 'between': {
      const x = targetValue(node.target, record);
      const low = operandValue(node.low, record);
      const high = operandValue(node.high, record);
      if (x === UNKNOWN || low === UNKNOWN || high === UNKNOWN) return undefined;
      if (x === null || low === null || high === null) return false;
      const above = compare(x, 'gte', low);
      const below = compare(x, 'lte', high);
      if (above === false || below === false) return false;
      return above === true && below === true ? true : undefined;
    }
    case 'text':
    case 'has':
      return undefined;
  }
}

const UNKNOWN = Symbol('unknown');
type Plain = string | number | null;

/**
 * Field types whose stored value the decoded record holds exactly and SQL compares as this file
 * does: text (byte equality), integers and doubles. Not currency (a decimal a double may not hold),
 * not boolean (a stored value other than 0 or 1 on SQLite decodes to true yet equals neither).
 */
const DECIDABLE = new Set(['integer', 'number', 'percent']);
function decidable(ref: FieldRef): boolean {
  return ref.alias === null && (DECIDABLE.has(ref.type) || familyOf(ref.type) === 'text');
}

function fieldValue(ref: FieldRef, record: DataRecord): Plain | typeof UNKNOWN {
  if (!decidable(ref) || !Object.hasOwn(record, ref.name)) return UNKNOWN;
  const value = record[ref.name];
  if (value === null) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  return UNKNOWN;
}

function targetValue(target: Target, record: DataRecord): Plain | typeof UNKNOWN {
  return target.kind === 'field' ? fieldValue(target.ref, record) : UNKNOWN;
}

function operandValue(operand: Operand, record: DataRecord): Plain | typeof UNKNOWN {
  if (operand.kind === 'field') return fieldValue(operand.ref, record);
  const value = operand.value;
  if (value === null || typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  return UNKNOWN;
}

function sameKind(a: unknown, b: unknown): boolean {
  return typeof a === typeof b && (typeof a === 'string' || typeof a === 'number');
}

/** Equality of two values of one kind; order of numbers only (text order is the collation's). */
function compare(x: Exclude<Plain, null>, op: CompareOp, y: Exclude<Plain, null>): boolean | undefined {
  if (!sameKind(x, y)) return undefined;
  if (op === 'eq') return x === y;
  if (op === 'ne') return x !== y;
  if (typeof x !== 'number' || typeof y !== 'number') return undefined;
  switch (op) {
    case 'gt': return x > y;
    case 'gte': return x >= y;
    case 'lt': return x < y;
    case 'lte': return x <= y;
  }
}
