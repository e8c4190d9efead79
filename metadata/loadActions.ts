import { join } from 'node:path';
import type { CodedError } from '../kernel/errors.ts';
import { suggest } from '../kernel/suggest.ts';
import { actionDefinitionSchema, type ParsedAction } from './actionSchema.ts';
import type { ActionAssignment, ActionInputField, ActionRun, ResolvedAction } from './actionTypes.ts';
import { compileActionExpression, type ActionExpressionScope } from './cel/compileActionExpression.ts';
import { describeIssues } from './describeIssues.ts';
import { metadataError, type MetadataProblem } from './metadataError.ts';
import { humanize, SNAKE_CASE } from './names.ts';
import { readDeclarationDir } from './readDeclarationDir.ts';
import type { ResolvedObject } from './types.ts';
import { PARSE_ONCE } from '../kernel/parseOnce.ts';

export interface ActionSource {
  dir: string;
  app: string;
}

/** Input names: identifiers CEL reads as `input.<name>`; `recordId` is the body key of record actions. */
const INPUT_NAME = /^[a-z][a-zA-Z0-9_]{0,62}$/;
const TEXT_TYPES = new Set(['text', 'textarea', 'email', 'url', 'phone']);
const NUMBER_TYPES = new Set(['integer', 'number', 'currency', 'percent']);
/** Fields an action may not assign: computed or engine-kept ones. */
const COMPUTED_TYPES = new Set(['formula', 'autonumber']);

function unknownObject(name: string, objects: ReadonlyMap<string, ResolvedObject>): string {
  const near = suggest(name, [...objects.keys()]);
  return `unknown object '${name}'${near ? ` (did you mean '${near}'?)` : `; loaded objects: ${[...objects.keys()].sort().join(', ') || 'none'}`}`;
}

export function checkInput(input: Record<string, ActionInputField>, objects: ReadonlyMap<string, ResolvedObject>): MetadataProblem[] {
  const problems: MetadataProblem[] = [];
  for (const [name, field] of Object.entries(input)) {
    const at = `input.${name}`;
    if (!INPUT_NAME.test(name)) problems.push({ path: at, reason: 'input names start with a lowercase letter and hold letters, digits and underscores (at most 63)' });
    if (name === 'recordId') problems.push({ path: at, reason: "'recordId' is the body key that names the record of a record action; choose another input name" });
    if (field.maxLength !== undefined && !TEXT_TYPES.has(field.type)) problems.push({ path: `${at}.maxLength`, reason: `applies to text inputs only, not ${field.type}` });
    if ((field.min !== undefined || field.max !== undefined) && !NUMBER_TYPES.has(field.type)) problems.push({ path: `${at}.${field.min !== undefined ? 'min' : 'max'}`, reason: `applies to number inputs only, not ${field.type}` });
    if (field.min !== undefined && field.max !== undefined && field.min > field.max) problems.push({ path: `${at}.min`, reason: 'must not be greater than max' });
    const choice = field.type === 'select' || field.type === 'multiselect';
    if (choice && !field.options) problems.push({ path: `${at}.options`, reason: `is required: the values a ${field.type} input accepts` });
    if (!choice && field.options) problems.push({ path: `${at}.options`, reason: `applies to select and multiselect inputs only, not ${field.type}` });
    if (field.type === 'lookup' && !field.reference) problems.push({ path: `${at}.reference`, reason: 'is required: the object whose record id the input holds' });
    if (field.type !== 'lookup' && field.reference) problems.push({ path: `${at}.reference`, reason: `applies to lookup inputs only, not ${field.type}` });
    if (field.reference && !objects.has(field.reference)) problems.push({ path: `${at}.reference`, reason: unknownObject(field.reference, objects) });
  }
  return problems;
}

/** Compiles `set` or `values`: every key a writable field of the target, every value a CEL expression of its type. */
function compileAssignments(file: string, path: string, expressions: Record<string, string>, target: ResolvedObject, scope: ActionExpressionScope, problems: MetadataProblem[], errors: CodedError[]): ActionAssignment[] {
  const out: ActionAssignment[] = [];
  for (const [name, source] of Object.entries(expressions)) {
    const at = `${path}.${name}`;
    const field = target.fields[name];
    if (!field) {
      const near = suggest(name, Object.keys(target.fields));
      problems.push({ path: at, reason: `unknown field '${name}' of object '${target.name}'${near ? ` (did you mean '${near}'?)` : `; its fields: ${Object.keys(target.fields).join(', ')}`}` });
      continue;
    }
    if (COMPUTED_TYPES.has(field.type)) { problems.push({ path: at, reason: `field '${name}' is a ${field.type}: the engine computes it` }); continue; }
    if (field.readonly) { problems.push({ path: at, reason: `field '${name}' is readonly: no action may write it` }); continue; }
    try {
      out.push({ field: name, expression: compileActionExpression(source, scope, field, { file, path: at }) });
    } catch (error) {
      errors.push(error as CodedError);
    }
  }
  return out;
}

function resolveAction(file: string, app: string, parsed: ParsedAction, objects: ReadonlyMap<string, ResolvedObject>, errors: CodedError[]): ResolvedAction | null {
  const problems: MetadataProblem[] = [];
  const before = errors.length;
  const input = (parsed.input ?? {}) as Record<string, ActionInputField>;
  problems.push(...checkInput(input, objects));
  const recordObject = parsed.object === undefined ? undefined : objects.get(parsed.object);
  if (parsed.object !== undefined && !recordObject) problems.push({ path: 'object', reason: unknownObject(parsed.object, objects) });
  const scope: ActionExpressionScope = { input, ...(recordObject ? { record: { name: recordObject.name, fields: recordObject.fields, owner: recordObject.owner } } : {}) };

  const { type, set, object, values } = parsed.run;
  const misplaced = (key: string, where: string) => problems.push({ path: `run.${key}`, reason: `does not apply to run.type '${type}' (${where})` });
  let run: ActionRun = { type: 'handler' };
  let assignments: ActionAssignment[] = [];
  if (type === 'update') {
    if (object !== undefined) misplaced('object', "an update changes the action's record: set the action's object instead");
    if (values !== undefined) misplaced('values', 'an update assigns fields with run.set');
    if (parsed.run.flow !== undefined) misplaced('flow', 'flow applies to run.type flow');
    if (parsed.object === undefined) problems.push({ path: 'object', reason: "is required for run.type 'update': the object whose record the action changes" });
    if (!set || Object.keys(set).length === 0) problems.push({ path: 'run.set', reason: "is required for run.type 'update': the fields to assign, as CEL expressions" });
    else if (recordObject) assignments = compileAssignments(file, 'run.set', set, recordObject, scope, problems, errors);
    run = { type, set: set ?? {} };
  } else if (type === 'create') {
    if (set !== undefined) misplaced('set', 'a create gives the new record with run.values');
    if (parsed.run.flow !== undefined) misplaced('flow', 'flow applies to run.type flow');
    const target = object === undefined ? undefined : objects.get(object);
    if (object === undefined) problems.push({ path: 'run.object', reason: "is required for run.type 'create': the object of the new record" });
    else if (!target) problems.push({ path: 'run.object', reason: unknownObject(object, objects) });
    if (!values || Object.keys(values).length === 0) problems.push({ path: 'run.values', reason: "is required for run.type 'create': the fields of the new record, as CEL expressions" });
    else if (target) assignments = compileAssignments(file, 'run.values', values, target, scope, problems, errors);
    run = { type, object: object ?? '', values: values ?? {} };
  } else if (type === 'flow') {
    for (const key of ['set', 'object', 'values'] as const) if (parsed.run[key] !== undefined) misplaced(key, 'a flow action starts the flow named by run.flow with its input');
    if (parsed.object !== undefined) problems.push({ path: 'object', reason: "does not apply to run.type 'flow': the flow receives the input only; declare the record id as an input" });
    if (parsed.run.flow === undefined) problems.push({ path: 'run.flow', reason: "is required for run.type 'flow': the name of the flow it starts" });
    run = { type, flow: parsed.run.flow ?? '' };
  } else {
    for (const key of ['set', 'object', 'values', 'flow'] as const) if (parsed.run[key] !== undefined) misplaced(key, 'a plugin registers the function through actions.registry');
  }
  errors.push(...problems.map((p) => metadataError(file, p.path, p.reason)));
  if (problems.length > 0 || errors.length > before) return null;
  return {
    name: parsed.name,
    label: parsed.label ?? humanize(parsed.name),
    ...(parsed.description !== undefined ? { description: parsed.description } : {}),
    object: parsed.object ?? null,
    permission: parsed.permission ?? null,
    input,
    run,
    assignments,
    source: file,
    app,
  };
}

/**
 * Reads actions/<name>.{json,ts} of every app: schema (unknown keys refused), names unique across
 * apps, objects and fields known, every CEL expression type-checked against `input`, `record`,
 * `user` and `now()`. Returns the valid actions by app and every problem.
 */
export async function loadActions(sources: ActionSource[], objects: ReadonlyMap<string, ResolvedObject>): Promise<{ actions: Map<string, ResolvedAction[]>; errors: CodedError[] }> {
  const errors: CodedError[] = [];
  const actions = new Map<string, ResolvedAction[]>();
  const declaredIn = new Map<string, string>();
  for (const { dir, app } of sources) {
    const read = await readDeclarationDir(join(dir, 'actions'), 'actions');
    errors.push(...read.errors);
    const loaded: ResolvedAction[] = [];
    for (const { file, stem, ext, value } of read.declarations) {
      const parsed = actionDefinitionSchema.safeParse(value, PARSE_ONCE);
      const problems = parsed.success ? [] : describeIssues(actionDefinitionSchema, value, parsed.error.issues);
      const name = (value as { name?: unknown } | null)?.name;
      if (typeof name === 'string') {
        if (!SNAKE_CASE.test(name) || name.length > 63) problems.push({ path: 'name', reason: `'${name.slice(0, 80)}' must be snake_case (lowercase letters, digits and single underscores, starting with a letter, at most 63)` });
        if (name !== stem) problems.push({ path: 'name', reason: `action '${name}' must be declared in a file named ${name}${ext}` });
        const other = declaredIn.get(name);
        if (other) problems.push({ path: 'name', reason: `action '${name}' is already declared in ${other}` });
        else declaredIn.set(name, file);
      }
      errors.push(...problems.map((p) => metadataError(file, p.path, p.reason)));
      if (!parsed.success || problems.length > 0) continue;
      const action = resolveAction(file, app, parsed.data, objects, errors);
      if (action) loaded.push(action);
    }
    actions.set(app, loaded);
  }
  return { actions, errors };
}
