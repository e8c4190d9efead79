import type { ExpressionContext, ResolvedObject } from './types.ts';

export interface RuleViolation {
  rule: string;
  /** The rule's `field`, or its name when it names none. */
  field: string;
  message: string;
}

/**
 * The validation rules a record breaks on a write. Only a `false` result is a violation: a rule
 * that reads a null field yields null and passes (the field's `required` flag demands presence).
 */
export function checkValidationRules(
  object: ResolvedObject,
  record: Record<string, unknown>,
  operation: 'create' | 'update',
  context?: ExpressionContext,
): RuleViolation[] {
  const violations: RuleViolation[] = [];
  for (const rule of object.validationRules) {
    if (rule.on && !rule.on.includes(operation)) continue;
    if (rule.compiled.evaluate(record, context) === false) {
      violations.push({ rule: rule.name, field: rule.field ?? rule.name, message: rule.message });
    }
  }
  return violations;
}
