import type { ExpressionContext, ResolvedField } from '../../../metadata/types.ts';

/** Adds formula values to a record. A formula that fails on this record's values reads as null. */
export function computeFormulas(record: Record<string, unknown>, formulas: readonly ResolvedField[], context?: ExpressionContext): void {
  for (const field of formulas) {
    if (!field.compiled) {
      record[field.name] = null;
      continue;
    }
    let value: unknown;
    try {
      value = field.compiled.evaluate(record, context);
    } catch {
      value = null;
    }
    record[field.name] = normalize(value, field);
  }
}

function normalize(value: unknown, field: ResolvedField): unknown {
  if (value === undefined) return null;
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Date) return field.returns === 'date' ? value.toISOString().slice(0, 10) : value.toISOString();
  return value;
}
