import type { CompiledExpression, ExpressionContext, FieldConditionKey, ResolvedField, ResolvedObject } from './types.ts';

/** The conditional field rules, in the order their problems are reported. */
export const FIELD_CONDITION_KEYS = ['visibleWhen', 'readonlyWhen', 'requiredWhen'] as const satisfies readonly FieldConditionKey[];

type Row = Record<string, unknown>;

export interface ConditionProblem {
  path: string;
  message: string;
}

/** What a write hands the rules: the fields the caller sent, the stored record (updates) and the record as it will be stored. */
export interface ConditionalWrite {
  mode: 'create' | 'update';
  /** Fields the caller sent; engine work (`system`) is not held to visibleWhen and readonlyWhen. */
  sent: readonly string[];
  system: boolean;
  previous?: Row;
  /** The record after the write, formulas included. */
  next: Row;
}

const byObject = new WeakMap<ResolvedObject, ReadonlyArray<ResolvedField>>();

/** Fields of the object that declare any conditional rule, found once per object. */
export function conditionalFields(object: ResolvedObject): ReadonlyArray<ResolvedField> {
  let found = byObject.get(object);
  if (!found) byObject.set(object, (found = Object.values(object.fields).filter((f) => f.conditions !== undefined)));
  return found;
}

/** A rule holds only when it yields true: one reading a null field yields null and does not hold. */
function holds(rule: CompiledExpression, record: Row, context: ExpressionContext | undefined): boolean {
  try {
    return rule.evaluate(record, context) === true;
  } catch {
    return false;
  }
}

/**
 * Whether `field` is visible for `record`. A record read without a field the rule reads (a
 * projection) cannot tell: the field is then not visible, so a narrow select never shows more.
 */
export function isVisible(field: ResolvedField, record: Row, context?: ExpressionContext): boolean {
  const rule = field.conditions?.visibleWhen;
  if (!rule) return true;
  if (!rule.reads.every((name) => Object.hasOwn(record, name))) return false;
  return holds(rule, record, context);
}

/** Removes, in place, each field a record carries whose visibleWhen does not hold for it. */
export function hideInvisible(object: ResolvedObject, records: Row[], context?: ExpressionContext): void {
  const rules = conditionalFields(object).filter((f) => f.conditions!.visibleWhen);
  if (rules.length === 0 || records.length === 0) return;
  for (const record of records) {
    // Decided on the record as read, before any field is removed.
    const hidden = rules.filter((f) => Object.hasOwn(record, f.name) && !isVisible(f, record, context));
    for (const field of hidden) delete record[field.name];
  }
}

const empty = (value: unknown) => value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);
const same = (a: unknown, b: unknown) => (a ?? null) === (b ?? null) || JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * What a write breaks of the conditional rules, one problem per field:
 * - visibleWhen: a sent field must be visible for the record as written;
 * - readonlyWhen (updates): a sent field whose rule holds for the stored record keeps its value;
 * - requiredWhen: a visible field whose rule holds for the record as written has a value.
 */
export function conditionProblems(object: ResolvedObject, write: ConditionalWrite, context?: ExpressionContext): ConditionProblem[] {
  const problems: ConditionProblem[] = [];
  const sent = new Set(write.sent);
  for (const field of conditionalFields(object)) {
    const { visibleWhen, readonlyWhen, requiredWhen } = field.conditions!;
    const visible = !visibleWhen || holds(visibleWhen, write.next, context);
    const name = field.name;
    if (!write.system && sent.has(name) && !visible) {
      problems.push({ path: name, message: `cannot be written: it is not visible for this record (visibleWhen: ${visibleWhen!.source})` });
    } else if (!write.system && sent.has(name) && readonlyWhen && write.mode === 'update' && write.previous
      && holds(readonlyWhen, write.previous, context) && !same(write.next[name], write.previous[name])) {
      problems.push({ path: name, message: `is read-only for this record (readonlyWhen: ${readonlyWhen.source})` });
    } else if (requiredWhen && visible && empty(write.next[name]) && holds(requiredWhen, write.next, context)) {
      problems.push({ path: name, message: `is required for this record (requiredWhen: ${requiredWhen.source})` });
    }
  }
  return problems;
}
