import { SYSTEM_FIELDS, type CompiledExpression, type ExpressionContext, type FormulaType, type SystemField } from '../types.ts';
import { metadataError } from '../metadataError.ts';
import { analyzeExpression, type RunExpression } from './analyzeExpression.ts';
import { expressionFailed } from './expressionFailed.ts';
import { recordEnvironment, type RecordScope } from './celEnvironment.ts';
import { ACCEPTED_RESULT_TYPES, formulaCelType, systemFieldType } from './celTypes.ts';
import { clockNow, withClock } from './clock.ts';
import { fromCelValue, toCelValue, type ValueKind } from './celValues.ts';

/** Where an expression is declared, for METADATA_INVALID errors. */
export interface ExpressionLocation {
  file: string;
  path: string;
}

interface Input {
  name: string;
  kind: ValueKind;
  /** A formula read by this expression, computed when the record does not carry its value. */
  formula?: CompiledExpression;
}

const formulaCache = new WeakMap<object, Map<string, CompiledExpression>>();

/**
 * Type-checks `source` against the object's fields and returns its evaluator. Fails with
 * METADATA_INVALID naming the expression and what to write instead.
 *
 * Null rule: a null (or absent) field is left out of `record`. When reading it makes evaluation
 * fail, the result is null instead of an error: a formula over a null field is null, and a
 * validation rule over one yields null (not violated; `required` is what demands a value). Use
 * `has(record.x)` to branch on presence explicitly.
 */
export function compileExpression(source: string, object: RecordScope, expected?: FormulaType, location?: ExpressionLocation): CompiledExpression {
  return compile(source, object, expected, location, []);
}

/** Compiles the formula of `fieldName`, and the formulas it reads, once per object. */
export function compileFormula(object: RecordScope, fieldName: string, location?: ExpressionLocation): CompiledExpression {
  return formula(object, fieldName, location, []);
}

function formula(object: RecordScope, fieldName: string, location: ExpressionLocation | undefined, stack: string[]): CompiledExpression {
  let byName = formulaCache.get(object.fields);
  if (!byName) formulaCache.set(object.fields, (byName = new Map()));
  const cached = byName.get(fieldName);
  if (cached) return cached;
  const field = object.fields[fieldName]!;
  const where = location ?? { file: object.name ?? '(code)', path: `fields.${fieldName}.expression` };
  if (stack.includes(fieldName)) {
    throw metadataError(where.file, where.path, `formulas refer to each other in a cycle: ${[...stack, fieldName].join(' -> ')}`, { expression: field.expression });
  }
  const compiled = compile(field.expression ?? '', object, field.returns ?? 'text', where, [...stack, fieldName]);
  byName.set(fieldName, compiled);
  return compiled;
}

function compile(source: string, object: RecordScope, expected: FormulaType | undefined, location: ExpressionLocation | undefined, stack: string[]): CompiledExpression {
  const fail = (reason: string) =>
    metadataError(location?.file ?? object.name ?? '(code)', location?.path ?? 'expression', `${reason} (in expression '${source}')`, { expression: source });

  const analysis = analyzeExpression(recordEnvironment(object), source, object);
  if (!analysis.ok) throw fail(analysis.reason);
  if (expected && !ACCEPTED_RESULT_TYPES[expected].includes(analysis.type)) {
    throw fail(`the expression yields ${analysis.type}, but ${formulaCelType(expected)} is expected${conversionHint(analysis.type, expected)}`);
  }

  const names = analysis.referenced === 'all' ? [...SYSTEM_FIELDS, ...Object.keys(object.fields)] : [...analysis.referenced];
  const inputs: Input[] = [];
  for (const name of names) {
    const field = object.fields[name];
    if (field?.type === 'formula') {
      const where = { file: location?.file ?? object.name ?? '(code)', path: `fields.${name}.expression` };
      inputs.push({ name, kind: field.returns ?? 'text', formula: formula(object, name, where, stack) });
    } else if (field) inputs.push({ name, kind: field.type });
    else if ((SYSTEM_FIELDS as readonly string[]).includes(name)) inputs.push({ name, kind: systemFieldType(name as SystemField) as ValueKind });
  }
  const reads = new Set<string>();
  for (const input of inputs) {
    if (input.formula) for (const name of input.formula.reads) reads.add(name);
    else reads.add(input.name);
  }
  return buildEvaluator(source, analysis.type, analysis.run, inputs, [...reads], expected);
}

function buildEvaluator(source: string, type: string, run: RunExpression, inputs: Input[], reads: string[], expected?: FormulaType): CompiledExpression {
  return {
    source,
    type,
    reads,
    evaluate(record: Record<string, unknown>, context?: ExpressionContext): unknown {
      return withClock(context?.now, () => {
        const celRecord: Record<string, unknown> = {};
        let missing = false;
        for (const input of inputs) {
          let raw = record[input.name];
          if ((raw === undefined || raw === null) && input.formula) raw = input.formula.evaluate(record, { ...context, now: clockNow() });
          const value = toCelValue(input.kind, raw);
          if (value === undefined) missing = true;
          else celRecord[input.name] = value;
        }
        let result: unknown;
        try {
          result = run({ record: celRecord, user: context?.user ?? null });
        } catch (error) {
          if (missing && (error as { code?: string }).code === 'no_such_key') return null;
          throw expressionFailed(source, error);
        }
        return fromCelValue(result, expected);
      });
    },
  };
}

function conversionHint(actual: string, expected: FormulaType): string {
  if (expected === 'integer' && actual === 'double') return '; convert with int(...)';
  if (expected === 'text') return '; convert with string(...)';
  if (expected === 'number' && actual === 'string') return '; convert with double(...)';
  return '';
}
