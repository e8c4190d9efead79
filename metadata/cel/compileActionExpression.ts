import type { Environment } from '@marcbachmann/cel-js';
import { suggest } from '../../kernel/suggest.ts';
import type { ActionInputField, CompiledActionExpression } from '../actionTypes.ts';
import { metadataError } from '../metadataError.ts';
import { SYSTEM_FIELDS, type FieldDefinition, type FormulaType, type SystemField } from '../types.ts';
import { analyzeExpression } from './analyzeExpression.ts';
import { expressionFailed } from './expressionFailed.ts';
import { constantEnvironment, recordEnvironment, type RecordScope } from './celEnvironment.ts';
import { ACCEPTED_RESULT_TYPES, fieldCelType, formulaCelType, systemFieldType } from './celTypes.ts';
import { withClock } from './clock.ts';
import { fromCelValue, toCelValue, type ValueKind } from './celValues.ts';

/** What an action's expressions see: its input, and for a record action the record's fields. */
export interface ActionExpressionScope {
  input: Record<string, ActionInputField>;
  /** The record action's object; absent: `record` is not defined. */
  record?: RecordScope;
}

const environments = new WeakMap<object, Environment>();

/** `input` typed from the action's input fields, `record` from the object's fields, `user`, and the runtime functions. */
export function actionEnvironment(scope: ActionExpressionScope): Environment {
  const cached = environments.get(scope);
  if (cached) return cached;
  const schema: Record<string, string> = {};
  for (const [name, field] of Object.entries(scope.input)) schema[name] = fieldCelType(field);
  const base = scope.record ? recordEnvironment(scope.record) : constantEnvironment();
  const env = base.clone().registerVariable({ name: 'input', schema, description: "The action's validated input" });
  environments.set(scope, env);
  return env;
}

/** The result kind a field of this type stores, for type checks and conversion; null when any value goes (json, multiselect). */
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

const NULL_TYPES = ['null', 'null_type'];

/** The checker's reasons, said in an action's terms: its inputs, and whether it has a record. */
function explainForAction(reason: string, source: string, scope: ActionExpressionScope): string {
  if (!scope.record && reason.startsWith("unknown identifier 'record'")) {
    return "'record' is not available: this action has no object; set the action's object to run it on a record, or use input, user and the runtime functions";
  }
  const key = /^type error: No such key: (\w+)/.exec(reason)?.[1];
  if (key && new RegExp(`\\binput\\s*\\.\\s*${key}\\b`).test(source)) {
    const names = Object.keys(scope.input);
    const near = suggest(key, names);
    return `unknown input 'input.${key}'${near ? ` (did you mean 'input.${near}'?)` : `; inputs: ${names.join(', ') || 'none'}`}`;
  }
  return reason;
}

/**
 * Type-checks a value expression of an action against `input`, `record`, `user` and `now()`, for
 * the field it assigns. Fails with METADATA_INVALID naming the file and path.
 */
export function compileActionExpression(source: string, scope: ActionExpressionScope, target: Pick<FieldDefinition, 'type' | 'returns'>, location: { file: string; path: string }): CompiledActionExpression {
  const fail = (reason: string) => metadataError(location.file, location.path, `${reason} (in expression '${source}')`, { expression: source });
  const analysis = analyzeExpression(actionEnvironment(scope), source, scope.record ?? null);
  if (!analysis.ok) throw fail(explainForAction(analysis.reason, source, scope));
  const kind = resultKind(target);
  if (kind) {
    const accepted = [...ACCEPTED_RESULT_TYPES[kind], ...NULL_TYPES];
    if (!accepted.includes(analysis.type)) throw fail(`the expression yields ${analysis.type}, but the field is ${target.type} (${formulaCelType(kind)} is expected)`);
  } else if (target.type === 'multiselect' && !['list<string>', 'list<dyn>', 'list', 'dyn', ...NULL_TYPES].includes(analysis.type)) {
    throw fail(`the expression yields ${analysis.type}, but the field is multiselect (a list of strings is expected)`);
  }
  const run = analysis.run;
  const recordFields = scope.record ? scope.record.fields : {};
  return {
    source,
    type: analysis.type,
    evaluate({ input, record, context }) {
      return withClock(context?.now, () => {
        let missing = false;
        const celInput: Record<string, unknown> = {};
        for (const [name, field] of Object.entries(scope.input)) {
          const value = toCelValue(field.type, input[name]);
          if (value === undefined) missing = true;
          else celInput[name] = value;
        }
        const celRecord: Record<string, unknown> = {};
        if (record) {
          for (const name of [...SYSTEM_FIELDS, ...Object.keys(recordFields)]) {
            const field = recordFields[name];
            const valueKind: ValueKind = field ? (field.type === 'formula' ? field.returns ?? 'text' : field.type) : (systemFieldType(name as SystemField) as ValueKind);
            const value = toCelValue(valueKind, record[name]);
            if (value === undefined) missing = true;
            else celRecord[name] = value;
          }
        }
        let result: unknown;
        try {
          result = run({ input: celInput, record: celRecord, user: context?.user ?? null });
        } catch (error) {
          // The null rule of compileExpression: reading an absent value yields null.
          if (missing && (error as { code?: string }).code === 'no_such_key') return null;
          throw expressionFailed(source, error);
        }
        return fromCelValue(result, kind ?? undefined);
      });
    },
  };
}
