import type { Environment } from '@marcbachmann/cel-js';
import { suggest } from '../../kernel/suggest.ts';
import type { ActionInputField } from '../actionTypes.ts';
import type { CompiledFlowExpression, FlowScope } from '../flowTypes.ts';
import { metadataError } from '../metadataError.ts';
import { SYSTEM_FIELDS, type FieldDefinition, type FormulaType, type SystemField } from '../types.ts';
import { analyzeExpression } from './analyzeExpression.ts';
import { expressionFailed } from './expressionFailed.ts';
import { constantEnvironment, recordEnvironment, type RecordScope } from './celEnvironment.ts';
import { ACCEPTED_RESULT_TYPES, fieldCelType, formulaCelType, SYSTEM_FIELD_CEL_TYPES, systemFieldType, TIMESTAMP } from './celTypes.ts';
import { withClock } from './clock.ts';
import { fromCelValue, toCelValue, type ValueKind } from './celValues.ts';

/** What a step's output is, for typing `steps.<id>.output`: a record of an object, or any value. */
export type FlowOutputShape = { record: RecordScope } | { schema: Record<string, string> } | 'dyn';

/** What a flow expression sees: the flow's input, the steps declared before it, and `record` (record and time-relative flows). */
export interface FlowExpressionScope {
  input: Record<string, ActionInputField>;
  steps: ReadonlyMap<string, FlowOutputShape>;
  record?: RecordScope;
}

/** What an expression must yield: a field's type (assignments), a CEL kind, or anything. */
export type FlowExpected =
  | { field: Pick<FieldDefinition, 'type' | 'returns'> }
  | { kind: 'bool' | 'string' | 'timestamp' | 'strings' }
  | 'any';

const NULL_TYPES = ['null', 'null_type'];

function recordSchema(scope: RecordScope): Record<string, string> {
  const schema: Record<string, string> = {};
  for (const system of SYSTEM_FIELDS) if (system !== 'owner_id' || scope.owner !== false) schema[system] = SYSTEM_FIELD_CEL_TYPES[system];
  for (const [name, field] of Object.entries(scope.fields)) schema[name] = fieldCelType(field);
  return schema;
}

/** `input`, `steps`, `record`, `user` and the runtime functions. */
export function flowEnvironment(scope: FlowExpressionScope): Environment {
  const input: Record<string, string> = {};
  for (const [name, field] of Object.entries(scope.input)) input[name] = fieldCelType(field);
  const steps: Record<string, unknown> = {};
  for (const [id, shape] of scope.steps) {
    const output = shape === 'dyn' ? 'dyn' : 'record' in shape ? recordSchema(shape.record) : shape.schema;
    steps[id] = { status: 'string', output };
  }
  const base = scope.record ? recordEnvironment(scope.record) : constantEnvironment();
  let env = base.clone().registerVariable({ name: 'input', schema: input, description: "The flow's validated input" });
  // Before the first step there are no steps to read: `steps` is then not defined at all.
  if (Object.keys(steps).length > 0) env = env.registerVariable({ name: 'steps', schema: steps as Record<string, string>, description: 'The outputs of the steps before this one' });
  return env;
}

function resultKind(field: Pick<FieldDefinition, 'type' | 'returns'>): FormulaType | null {
  switch (field.type) {
    case 'integer': return 'integer';
    case 'number': case 'currency': case 'percent': return 'number';
    case 'boolean': return 'boolean';
    case 'date': return 'date';
    case 'datetime': return 'datetime';
    case 'json': case 'multiselect': return null;
    default: return 'text';
  }
}

function explain(reason: string, source: string, scope: FlowExpressionScope): string {
  if (!scope.record && reason.startsWith("unknown identifier 'record'")) {
    return "'record' is not available: only record flows and time-relative flows have a record; use input, steps, user and the runtime functions";
  }
  if (reason.startsWith("unknown identifier 'steps'")) {
    const step = /\bsteps\s*\.\s*(\w+)/.exec(source)?.[1] ?? '';
    return `unknown step 'steps.${step}': an expression reads the steps declared before it, and none is declared before this one`;
  }
  const key = /^type error: No such key: (\w+)/.exec(reason)?.[1];
  if (key && new RegExp(`\\binput\\s*\\.\\s*${key}\\b`).test(source)) {
    const names = Object.keys(scope.input);
    const near = suggest(key, names);
    return `unknown input 'input.${key}'${near ? ` (did you mean 'input.${near}'?)` : `; inputs: ${names.join(', ') || 'none'}`}`;
  }
  if (key && new RegExp(`\\bsteps\\s*\\.\\s*${key}\\b`).test(source)) {
    const names = [...scope.steps.keys()];
    const near = suggest(key, names);
    return `unknown step 'steps.${key}': an expression reads the steps declared before it${near ? ` (did you mean 'steps.${near}'?)` : `; steps before this one: ${names.join(', ') || 'none'}`}`;
  }
  return reason;
}

function checkResult(type: string, expected: FlowExpected): string | null {
  if (expected === 'any') return null;
  if ('field' in expected) {
    const kind = resultKind(expected.field);
    if (kind) {
      if (![...ACCEPTED_RESULT_TYPES[kind], ...NULL_TYPES].includes(type)) return `the expression yields ${type}, but the field is ${expected.field.type} (${formulaCelType(kind)} is expected)`;
    } else if (expected.field.type === 'multiselect' && !['list<string>', 'list<dyn>', 'list', 'dyn', ...NULL_TYPES].includes(type)) {
      return `the expression yields ${type}, but the field is multiselect (a list of strings is expected)`;
    }
    return null;
  }
  const accepted: Record<string, string[]> = {
    bool: ['bool', 'dyn'],
    string: ['string', 'dyn', ...NULL_TYPES],
    timestamp: [TIMESTAMP, 'string', 'dyn'],
    strings: ['string', 'list<string>', 'list<dyn>', 'list', 'dyn'],
  };
  const wanted = { bool: 'bool', string: 'string', timestamp: `${TIMESTAMP} (or an ISO date string)`, strings: 'a string or a list of strings' }[expected.kind];
  return accepted[expected.kind]!.includes(type) ? null : `the expression yields ${type}, but ${wanted} is expected`;
}

function celRecord(scope: RecordScope, record: Record<string, unknown>): { value: Record<string, unknown>; missing: boolean } {
  let missing = false;
  const value: Record<string, unknown> = {};
  for (const name of [...SYSTEM_FIELDS, ...Object.keys(scope.fields)]) {
    if (name === 'owner_id' && scope.owner === false) continue;
    const field = scope.fields[name];
    const kind: ValueKind = field ? (field.type === 'formula' ? field.returns ?? 'text' : field.type) : (systemFieldType(name as SystemField) as ValueKind);
    const converted = toCelValue(kind, record[name]);
    if (converted === undefined) missing = true;
    else value[name] = converted;
  }
  return { value, missing };
}

/**
 * Type-checks a flow expression against `input`, `steps` (those declared before), `record`, `user`
 * and `now()`, for what it must yield. Fails with METADATA_INVALID naming the file and path.
 */
export function compileFlowExpression(source: string, scope: FlowExpressionScope, env: Environment, expected: FlowExpected, location: { file: string; path: string }): CompiledFlowExpression {
  const fail = (reason: string) => metadataError(location.file, location.path, `${reason} (in expression '${source}')`, { expression: source });
  const analysis = analyzeExpression(env, source, scope.record ?? null);
  if (!analysis.ok) throw fail(explain(analysis.reason, source, scope));
  const problem = checkResult(analysis.type, expected);
  if (problem) throw fail(problem);
  const run = analysis.run;
  const kind = expected !== 'any' && 'field' in expected ? resultKind(expected.field) ?? undefined : undefined;
  const stepShapes = scope.steps;
  return {
    source,
    type: analysis.type,
    evaluate({ input, steps, record, context }: FlowScope) {
      return withClock(context?.now, () => {
        let missing = false;
        const celInput: Record<string, unknown> = {};
        for (const [name, field] of Object.entries(scope.input)) {
          const value = toCelValue(field.type, input[name]);
          if (value === undefined) missing = true;
          else celInput[name] = value;
        }
        const celSteps: Record<string, unknown> = {};
        for (const [id, shape] of stepShapes) {
          const ran = steps[id];
          if (!ran) { missing = true; continue; }
          let output = ran.output;
          if (shape !== 'dyn' && 'record' in shape && output && typeof output === 'object') {
            const converted = celRecord(shape.record, output as Record<string, unknown>);
            if (converted.missing) missing = true;
            output = converted.value;
          } else if (shape !== 'dyn' && 'schema' in shape && output && typeof output === 'object') {
            // CEL's int is a BigInt: a count the step answered as a number is converted to it.
            const typed: Record<string, unknown> = { ...(output as Record<string, unknown>) };
            for (const [key, type] of Object.entries(shape.schema)) {
              if (type === 'int' && typeof typed[key] === 'number' && Number.isInteger(typed[key])) typed[key] = BigInt(typed[key] as number);
            }
            output = typed;
          }
          if (output === null || output === undefined) { missing = true; celSteps[id] = { status: ran.status }; } else celSteps[id] = { status: ran.status, output };
        }
        let celRecordValue: Record<string, unknown> = {};
        if (scope.record && record) {
          const converted = celRecord(scope.record, record);
          if (converted.missing) missing = true;
          celRecordValue = converted.value;
        }
        let result: unknown;
        try {
          result = run({ input: celInput, steps: celSteps, record: celRecordValue, user: context?.user ?? null });
        } catch (error) {
          // The null rule of compileExpression: reading an absent value yields null.
          if (missing && (error as { code?: string }).code === 'no_such_key') return null;
          throw expressionFailed(source, error);
        }
        if (expected !== 'any' && 'kind' in expected && expected.kind === 'timestamp') return result instanceof Date ? result.toISOString() : result === null ? null : String(result);
        return fromCelValue(result, kind);
      });
    },
  };
}
