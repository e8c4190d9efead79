import { evaluate } from '@marcbachmann/cel-js';

/**
 * A field's visibleWhen / readonlyWhen / requiredWhen over the record as the user types it. The
 * server decides on save; here a rule that cannot be evaluated in the browser (a runtime function,
 * a value of another type) counts as unknown, and unknown shows the field, enabled and optional.
 */
export function holds(expression: string | undefined, record: Record<string, unknown>, fallback: boolean): boolean {
  if (!expression) return fallback;
  try {
    const result = evaluate(expression, { record: normalize(record, expression) });
    return typeof result === 'boolean' ? result : fallback;
  } catch {
    return fallback;
  }
}

/** The fields the rule names (absent ones null), whole numbers as CEL ints so `record.score > 5` compares like the server does. */
function normalize(record: Record<string, unknown>, expression: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [, name] of expression.matchAll(/record\.([A-Za-z_][A-Za-z0-9_]*)/g)) {
    const v = record[name!];
    out[name!] = v === undefined ? null : typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : v;
  }
  return out;
}
