import { join } from 'node:path';
import type { Environment } from '@marcbachmann/cel-js';
import type { CodedError } from '../kernel/errors.ts';
import { suggest } from '../kernel/suggest.ts';
import { parseCron } from '../plugins/jobs/cronPattern.ts';
import type { ActionInputField, ResolvedAction } from './actionTypes.ts';
import { compileFlowExpression, flowEnvironment, type FlowExpected, type FlowExpressionScope, type FlowOutputShape } from './cel/compileFlowExpression.ts';
import type { RecordScope } from './cel/celEnvironment.ts';
import { describeIssues } from './describeIssues.ts';
import { flowDefinitionSchema, flowStepSchema, type ParsedFlow, type ParsedFlowStep } from './flowSchema.ts';
import { FLOW_LIMITS, type CompiledFlowExpression, type FlowAssignment, type FlowDefinition, type FlowStepType, type ResolvedFlow, type ResolvedFlowStep } from './flowTypes.ts';
import { checkInput } from './loadActions.ts';
import { metadataError, type MetadataProblem } from './metadataError.ts';
import { humanize, SNAKE_CASE } from './names.ts';
import { readDeclarationDir } from './readDeclarationDir.ts';
import type { ResolvedObject } from './types.ts';
import { PARSE_ONCE } from '../kernel/parseOnce.ts';

export interface FlowSource {
  dir: string;
  app: string;
}

const COMPUTED_TYPES = new Set(['formula', 'autonumber']);
const COMMON_KEYS = new Set(['id', 'type', 'label']);
/** The keys each step type accepts besides id, type and label; required ones listed in REQUIRED. */
const STEP_KEYS: Record<FlowStepType, string[]> = {
  get: ['object', 'recordId'],
  query: ['object', 'where', 'orderBy', 'limit'],
  history: ['object', 'recordId', 'limit'],
  create: ['object', 'values'],
  update: ['object', 'recordId', 'set'],
  delete: ['object', 'recordId'],
  branch: ['when', 'then', 'else'],
  wait: ['seconds', 'until'],
  action: ['action', 'input', 'recordId'],
  email: ['to', 'subject', 'text', 'html'],
  notify: ['to', 'title', 'body', 'channels', 'link'],
  http: ['url', 'method', 'headers', 'body', 'timeoutMs'],
};
const REQUIRED: Record<FlowStepType, string[]> = {
  get: ['object', 'recordId'],
  query: ['object'],
  history: ['object', 'recordId'],
  create: ['object', 'values'],
  update: ['object', 'recordId', 'set'],
  delete: ['object', 'recordId'],
  branch: ['when', 'then'],
  wait: [],
  action: ['action'],
  email: ['to', 'subject', 'text'],
  notify: ['to', 'title', 'body'],
  http: ['url'],
};
const WHAT: Partial<Record<string, string>> = {
  object: 'the object it works on', recordId: 'a CEL expression giving the record id', values: 'the fields of the new record, as CEL expressions',
  set: 'the fields to assign, as CEL expressions', when: 'a CEL condition', then: 'the steps run when the condition holds',
  action: 'the name of the action to run', to: 'a CEL expression giving the recipient', subject: 'a CEL expression giving the subject',
  text: 'a CEL expression giving the plain-text body', title: 'a CEL expression giving the title', body: 'a CEL expression giving the body',
  url: 'a CEL expression giving the URL',
};

function unknownObject(name: string, objects: ReadonlyMap<string, ResolvedObject>): string {
  const near = suggest(name, [...objects.keys()]);
  return `unknown object '${name}'${near ? ` (did you mean '${near}'?)` : `; loaded objects: ${[...objects.keys()].sort().join(', ') || 'none'}`}`;
}

function recordScopeOf(object: ResolvedObject): RecordScope {
  return { name: object.name, fields: object.fields, owner: object.owner };
}

interface Walk {
  file: string;
  objects: ReadonlyMap<string, ResolvedObject>;
  actions: ReadonlyMap<string, ResolvedAction>;
  input: Record<string, ActionInputField>;
  record?: RecordScope;
  /** Steps declared so far (document order) and the shape of their output. */
  shapes: Map<string, FlowOutputShape>;
  ids: Map<string, string>;
  count: number;
  problems: MetadataProblem[];
  errors: CodedError[];
}

function scopeOf(walk: Walk): { scope: FlowExpressionScope; env: () => Environment } {
  const scope: FlowExpressionScope = { input: walk.input, steps: new Map(walk.shapes), ...(walk.record ? { record: walk.record } : {}) };
  let env: Environment | null = null;
  return { scope, env: () => (env ??= flowEnvironment(scope)) };
}

function compile(walk: Walk, ctx: ReturnType<typeof scopeOf>, source: string, expected: FlowExpected, path: string): CompiledFlowExpression | undefined {
  try {
    return compileFlowExpression(source, ctx.scope, ctx.env(), expected, { file: walk.file, path });
  } catch (error) {
    walk.errors.push(error as CodedError);
    return undefined;
  }
}

function compileAssignments(walk: Walk, ctx: ReturnType<typeof scopeOf>, path: string, expressions: Record<string, string>, target: ResolvedObject, writable: boolean): FlowAssignment[] {
  const out: FlowAssignment[] = [];
  for (const [name, source] of Object.entries(expressions)) {
    const at = `${path}.${name}`;
    const field = target.fields[name];
    if (!field) {
      const near = suggest(name, Object.keys(target.fields));
      walk.problems.push({ path: at, reason: `unknown field '${name}' of object '${target.name}'${near ? ` (did you mean '${near}'?)` : `; its fields: ${Object.keys(target.fields).join(', ')}`}` });
      continue;
    }
    if (writable && COMPUTED_TYPES.has(field.type)) { walk.problems.push({ path: at, reason: `field '${name}' is a ${field.type}: the engine computes it` }); continue; }
    if (writable && field.readonly) { walk.problems.push({ path: at, reason: `field '${name}' is readonly: no flow may write it` }); continue; }
    const expression = compile(walk, ctx, source, { field }, at);
    if (expression) out.push({ field: name, expression });
  }
  return out;
}

function resolveSteps(walk: Walk, values: unknown[], path: string, depth: number): ResolvedFlowStep[] {
  const out: ResolvedFlowStep[] = [];
  values.forEach((value, index) => {
    const at = `${path}[${index}]`;
    const step = resolveStep(walk, value, at, depth);
    if (step) out.push(step);
  });
  return out;
}

function resolveStep(walk: Walk, value: unknown, at: string, depth: number): ResolvedFlowStep | null {
  walk.count += 1;
  if (walk.count === FLOW_LIMITS.steps + 1) walk.problems.push({ path: at, reason: `a flow holds at most ${FLOW_LIMITS.steps} steps, nested ones included` });
  const parsed = flowStepSchema.safeParse(value, PARSE_ONCE);
  if (!parsed.success) {
    for (const p of describeIssues(flowStepSchema, value, parsed.error.issues)) walk.problems.push({ path: `${at}.${p.path}`.replace(/\.\(root\)$|\.$/, ''), reason: p.reason });
    return null;
  }
  const step: ParsedFlowStep = parsed.data;
  const problems = walk.problems;
  if (!SNAKE_CASE.test(step.id) || step.id.length > 63) problems.push({ path: `${at}.id`, reason: `'${step.id.slice(0, 80)}' must be snake_case (lowercase letters, digits and single underscores, starting with a letter, at most 63)` });
  const other = walk.ids.get(step.id);
  if (other) problems.push({ path: `${at}.id`, reason: `step id '${step.id}' is already used at ${other}: step ids are unique in a flow` });
  else walk.ids.set(step.id, at);

  const type = step.type;
  const allowed = new Set([...COMMON_KEYS, ...STEP_KEYS[type]]);
  for (const key of Object.keys(step)) {
    if (!allowed.has(key)) problems.push({ path: `${at}.${key}`, reason: `does not apply to a '${type}' step (it accepts ${STEP_KEYS[type].join(', ')})` });
  }
  const record = step as Record<string, unknown>;
  for (const key of REQUIRED[type]) {
    if (record[key] === undefined) problems.push({ path: `${at}.${key}`, reason: `is required for a '${type}' step: ${WHAT[key] ?? key}` });
  }

  // Expressions see the steps declared before this one.
  const ctx = scopeOf(walk);
  const resolved: ResolvedFlowStep = { id: step.id, type, label: step.label ?? humanize(step.id), path: at };
  let target: ResolvedObject | undefined;
  if (step.object !== undefined && STEP_KEYS[type].includes('object')) {
    target = walk.objects.get(step.object);
    if (!target) problems.push({ path: `${at}.object`, reason: unknownObject(step.object, walk.objects) });
    else resolved.object = target.name;
  }
  if (step.recordId !== undefined && allowed.has('recordId')) resolved.recordId = compile(walk, ctx, step.recordId, { kind: 'string' }, `${at}.recordId`);
  let shape: FlowOutputShape = 'dyn';
  switch (type) {
    case 'get':
      if (target) shape = { record: recordScopeOf(target) };
      break;
    case 'create':
      if (target && step.values) resolved.assignments = compileAssignments(walk, ctx, `${at}.values`, step.values, target, true);
      if (step.values && Object.keys(step.values).length === 0) problems.push({ path: `${at}.values`, reason: 'must assign at least one field' });
      if (target) shape = { record: recordScopeOf(target) };
      break;
    case 'update':
      if (target && step.set) resolved.assignments = compileAssignments(walk, ctx, `${at}.set`, step.set, target, true);
      if (step.set && Object.keys(step.set).length === 0) problems.push({ path: `${at}.set`, reason: 'must assign at least one field' });
      if (target) shape = { record: recordScopeOf(target) };
      break;
    case 'delete':
      shape = { schema: { id: 'string' } };
      break;
    case 'query':
      if (target && step.where) resolved.where = compileAssignments(walk, ctx, `${at}.where`, step.where, target, false);
      if (target && step.orderBy) {
        step.orderBy.forEach((o, i) => {
          if (!target!.fields[o.field] && !['id', 'created_at', 'updated_at'].includes(o.field)) problems.push({ path: `${at}.orderBy[${i}].field`, reason: `unknown field '${o.field}' of object '${target!.name}'` });
        });
      }
      resolved.orderBy = (step.orderBy ?? []).map((o) => ({ field: o.field, order: o.order ?? 'asc' }));
      resolved.limit = step.limit ?? 50;
      shape = { schema: { records: 'list<dyn>', count: 'int' } };
      break;
    case 'history':
      if (target && !target.enable.trackHistory) problems.push({ path: `${at}.object`, reason: `object '${target.name}' keeps no history: set enable.trackHistory on it, or read it with a 'get' step` });
      resolved.limit = step.limit ?? 50;
      shape = { schema: { entries: 'list<dyn>', count: 'int' } };
      break;
    case 'branch':
      if (step.when !== undefined) resolved.when = compile(walk, ctx, step.when, { kind: 'bool' }, `${at}.when`);
      if (depth >= FLOW_LIMITS.depth) problems.push({ path: `${at}.then`, reason: `branches nest at most ${FLOW_LIMITS.depth} deep` });
      shape = { schema: { branch: 'string' } };
      break;
    case 'wait':
      if ((step.seconds === undefined) === (step.until === undefined)) problems.push({ path: `${at}.seconds`, reason: "a 'wait' step needs exactly one of seconds (a delay) and until (a CEL expression giving the instant)" });
      if (step.seconds !== undefined) resolved.seconds = step.seconds;
      if (step.until !== undefined) resolved.until = compile(walk, ctx, step.until, { kind: 'timestamp' }, `${at}.until`);
      shape = { schema: { until: 'string' } };
      break;
    case 'action': {
      const action = step.action === undefined ? undefined : walk.actions.get(step.action);
      if (step.action !== undefined && !action) {
        const near = suggest(step.action, [...walk.actions.keys()]);
        problems.push({ path: `${at}.action`, reason: `unknown action '${step.action}'${near ? ` (did you mean '${near}'?)` : `; declared actions: ${[...walk.actions.keys()].sort().join(', ') || 'none'}`}` });
      }
      if (action) {
        resolved.action = action.name;
        if (action.object && step.recordId === undefined) problems.push({ path: `${at}.recordId`, reason: `is required: action '${action.name}' is a record action of object '${action.object}'` });
        if (!action.object && step.recordId !== undefined) problems.push({ path: `${at}.recordId`, reason: `action '${action.name}' has no object: it takes no record` });
        resolved.input = [];
        for (const [name, source] of Object.entries(step.input ?? {})) {
          const field = action.input[name];
          if (!field) { problems.push({ path: `${at}.input.${name}`, reason: `unknown input '${name}' of action '${action.name}'; its inputs: ${Object.keys(action.input).join(', ') || 'none'}` }); continue; }
          const expression = compile(walk, ctx, source, { field: { type: field.type } }, `${at}.input.${name}`);
          if (expression) resolved.input.push({ name, expression });
        }
        for (const [name, field] of Object.entries(action.input)) {
          if (field.required && step.input?.[name] === undefined) problems.push({ path: `${at}.input.${name}`, reason: `is required by action '${action.name}'` });
        }
      }
      break;
    }
    case 'email':
      for (const key of ['to', 'subject', 'text', 'html'] as const) {
        const source = step[key];
        if (source !== undefined) resolved[key] = compile(walk, ctx, source, { kind: 'string' }, `${at}.${key}`);
      }
      break;
    case 'notify':
      if (step.to !== undefined) resolved.to = compile(walk, ctx, step.to, { kind: 'strings' }, `${at}.to`);
      for (const key of ['title', 'body', 'link'] as const) {
        const source = step[key];
        if (source !== undefined) resolved[key] = compile(walk, ctx, source, { kind: 'string' }, `${at}.${key}`);
      }
      resolved.channels = step.channels ?? ['in_app'];
      if (new Set(resolved.channels).size !== resolved.channels.length) problems.push({ path: `${at}.channels`, reason: 'must not repeat a channel' });
      break;
    case 'http':
      if (step.url !== undefined) resolved.url = compile(walk, ctx, step.url, { kind: 'string' }, `${at}.url`);
      if (step.body !== undefined) resolved.body = compile(walk, ctx, step.body, 'any', `${at}.body`);
      resolved.method = step.method ?? (step.body !== undefined ? 'POST' : 'GET');
      if (resolved.method === 'GET' && step.body !== undefined) problems.push({ path: `${at}.body`, reason: 'a GET request has no body: set method to POST, PUT, PATCH or DELETE' });
      resolved.headers = [];
      for (const [name, source] of Object.entries(step.headers ?? {})) {
        if (!/^[A-Za-z0-9-]{1,100}$/.test(name)) { problems.push({ path: `${at}.headers.${name}`, reason: 'header names hold letters, digits and dashes' }); continue; }
        if (['host', 'content-length', 'transfer-encoding', 'connection'].includes(name.toLowerCase())) { problems.push({ path: `${at}.headers.${name}`, reason: `the '${name}' header is set by the runtime` }); continue; }
        const expression = compile(walk, ctx, source, { kind: 'string' }, `${at}.headers.${name}`);
        if (expression) resolved.headers.push({ name, expression });
      }
      resolved.timeoutMs = step.timeoutMs ?? FLOW_LIMITS.httpDefaultTimeoutMs;
      break;
  }
  // Later steps read this one's output; nested steps come after it.
  walk.shapes.set(step.id, shape);
  if (type === 'branch') {
    if (step.then) resolved.then = resolveSteps(walk, step.then, `${at}.then`, depth + 1);
    resolved.else = step.else ? resolveSteps(walk, step.else, `${at}.else`, depth + 1) : [];
    if (step.then && step.then.length === 0 && resolved.else.length === 0) problems.push({ path: `${at}.then`, reason: 'a branch needs at least one step in then or else' });
  }
  return resolved;
}

function resolveFlow(file: string, app: string, parsed: ParsedFlow, objects: ReadonlyMap<string, ResolvedObject>, actions: ReadonlyMap<string, ResolvedAction>, errors: CodedError[]): ResolvedFlow | null {
  const problems: MetadataProblem[] = [];
  const before = errors.length;
  const input = (parsed.input ?? {}) as Record<string, ActionInputField>;
  problems.push(...checkInput(input, objects));
  const runAs = parsed.runAs ?? 'caller';
  const { type } = parsed;
  const start = parsed.start ?? {};
  const startKeys = Object.keys(start) as Array<keyof typeof start>;
  const needSystem = (why: string) => {
    if (runAs !== 'system') problems.push({ path: 'runAs', reason: `must be 'system' for ${why}: no user starts it` });
  };
  const allowStart = (key: 'record' | 'schedule' | 'timeRelative' | null) => {
    for (const k of startKeys) if (k !== key) problems.push({ path: `start.${k}`, reason: `does not apply to a flow of type '${type}'${k === 'record' ? " (use type 'record')" : k === 'schedule' ? " (use type 'schedule')" : k === 'timeRelative' ? " (time-relative starts apply to 'autolaunched' flows)" : ''}` });
  };
  if (parsed.hook !== undefined && type !== 'api') problems.push({ path: 'hook', reason: `applies to flows of type 'api' only, not '${type}'` });
  let recordObject: ResolvedObject | undefined;
  if (type === 'record') {
    allowStart('record');
    needSystem('a record flow');
    if (!start.record) problems.push({ path: 'start.record', reason: "is required for a record flow: { object, on: ['insert' | 'update' | 'delete'], when? }" });
    else {
      recordObject = objects.get(start.record.object);
      if (!recordObject) problems.push({ path: 'start.record.object', reason: unknownObject(start.record.object, objects) });
      if (new Set(start.record.on).size !== start.record.on.length) problems.push({ path: 'start.record.on', reason: 'must not repeat an event' });
    }
    if (parsed.input !== undefined) problems.push({ path: 'input', reason: 'a record flow has no input: its expressions read the record as record' });
  } else if (type === 'schedule') {
    allowStart('schedule');
    needSystem('a schedule flow');
    if (!start.schedule) problems.push({ path: 'start.schedule', reason: "is required for a schedule flow: { cron: '<minute hour day month weekday>' } in UTC" });
    else {
      try { parseCron(start.schedule.cron); } catch (error) { problems.push({ path: 'start.schedule.cron', reason: (error as Error).message }); }
    }
    if (parsed.input !== undefined) problems.push({ path: 'input', reason: 'a schedule flow has no input: nothing supplies it' });
  } else if (type === 'api') {
    allowStart(null);
    needSystem('an api flow');
    if (!parsed.hook) problems.push({ path: 'hook', reason: "is required for an api flow: { id: '<snake_case>', secretEnv: '<ENV_NAME>' }" });
  } else {
    allowStart('timeRelative');
    const relative = start.timeRelative;
    if (relative) {
      needSystem('a time-relative flow');
      recordObject = objects.get(relative.object);
      if (!recordObject) problems.push({ path: 'start.timeRelative.object', reason: unknownObject(relative.object, objects) });
      else {
        const field = recordObject.fields[relative.field];
        const near = suggest(relative.field, Object.keys(recordObject.fields));
        if (!field) problems.push({ path: 'start.timeRelative.field', reason: `unknown field '${relative.field}' of object '${recordObject.name}'${near ? ` (did you mean '${near}'?)` : ''}` });
        else if (field.type !== 'date' && field.type !== 'datetime' && !(field.type === 'formula' && (field.returns === 'date' || field.returns === 'datetime'))) {
          problems.push({ path: 'start.timeRelative.field', reason: `field '${relative.field}' is ${field.type}: a time-relative start needs a date or datetime field` });
        }
      }
      if ((relative.offsetDays === undefined) === (relative.withinDays === undefined)) problems.push({ path: 'start.timeRelative', reason: 'needs exactly one of offsetDays (a list of day offsets) and withinDays (a number of days)' });
      if (relative.offsetDays && new Set(relative.offsetDays).size !== relative.offsetDays.length) problems.push({ path: 'start.timeRelative.offsetDays', reason: 'must not repeat an offset' });
      if (parsed.input !== undefined) problems.push({ path: 'input', reason: 'a time-relative flow has no input: the sweep starts it with the record as record' });
    }
  }

  const walk: Walk = {
    file, objects, actions, input,
    ...(recordObject ? { record: recordScopeOf(recordObject) } : {}),
    shapes: new Map(), ids: new Map(), count: 0, problems, errors,
  };
  let when: CompiledFlowExpression | undefined;
  if (type === 'record' && start.record?.when !== undefined && recordObject) {
    when = compile(walk, scopeOf(walk), start.record.when, { kind: 'bool' }, 'start.record.when');
  }
  const steps = resolveSteps(walk, parsed.steps, 'steps', 0);
  errors.push(...problems.map((p) => metadataError(file, p.path, p.reason)));
  if (problems.length > 0 || errors.length > before) return null;
  return {
    name: parsed.name,
    label: parsed.label ?? humanize(parsed.name),
    ...(parsed.description !== undefined ? { description: parsed.description } : {}),
    type,
    runAs,
    input,
    start: startKeys.length > 0 ? (start as ResolvedFlow['start']) : null,
    hook: parsed.hook ?? null,
    ...(when ? { when } : {}),
    recordObject: recordObject?.name ?? null,
    steps,
    definition: parsed as FlowDefinition,
    source: file,
    app,
  };
}

/**
 * Reads flows/<name>.{json,ts} of every app: schema (unknown keys refused, at any depth, with their
 * path), names unique across apps, step ids unique in a flow, objects, fields and actions known,
 * every CEL expression type-checked against `input`, `steps.<id>.output` (of the steps declared
 * before it), `record`, `user` and `now()`. Returns the valid flows by app and every problem.
 */
export async function loadFlows(sources: FlowSource[], objects: ReadonlyMap<string, ResolvedObject>, actions: Iterable<ResolvedAction> = []): Promise<{ flows: Map<string, ResolvedFlow[]>; errors: CodedError[] }> {
  const errors: CodedError[] = [];
  const flows = new Map<string, ResolvedFlow[]>();
  const declaredIn = new Map<string, string>();
  const actionMap = new Map([...actions].map((a) => [a.name, a]));
  for (const { dir, app } of sources) {
    const read = await readDeclarationDir(join(dir, 'flows'), 'flows');
    errors.push(...read.errors);
    const loaded: ResolvedFlow[] = [];
    for (const { file, stem, ext, value } of read.declarations) {
      const parsed = flowDefinitionSchema.safeParse(value, PARSE_ONCE);
      const problems = parsed.success ? [] : describeIssues(flowDefinitionSchema, value, parsed.error.issues);
      const name = (value as { name?: unknown } | null)?.name;
      if (typeof name === 'string') {
        if (!SNAKE_CASE.test(name) || name.length > 63) problems.push({ path: 'name', reason: `'${name.slice(0, 80)}' must be snake_case (lowercase letters, digits and single underscores, starting with a letter, at most 63)` });
        if (name !== stem) problems.push({ path: 'name', reason: `flow '${name}' must be declared in a file named ${name}${ext}` });
        const other = declaredIn.get(name);
        if (other) problems.push({ path: 'name', reason: `flow '${name}' is already declared in ${other}` });
        else declaredIn.set(name, file);
      }
      errors.push(...problems.map((p) => metadataError(file, p.path, p.reason)));
      if (!parsed.success || problems.length > 0) continue;
      const flow = resolveFlow(file, app, parsed.data, objects, actionMap, errors);
      if (flow) loaded.push(flow);
    }
    flows.set(app, loaded);
  }
  return { flows, errors };
}
