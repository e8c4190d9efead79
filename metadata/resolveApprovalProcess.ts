import type { CodedError } from '../kernel/errors.ts';
import { suggest } from '../kernel/suggest.ts';
import type { ResolvedAction } from './actionTypes.ts';
import type { ResolvedFlow } from './flowTypes.ts';
import type { ParsedApprovalProcess } from './approvalSchema.ts';
import type { ApprovalOutcome, QuorumClamp, ResolvedApprovalProcess, ResolvedApprovalStep } from './approvalTypes.ts';
import { compileActionExpression } from './cel/compileActionExpression.ts';
import type { CompiledActionExpression } from './actionTypes.ts';
import type { MetadataProblem } from './metadataError.ts';
import { humanize, SNAKE_CASE } from './names.ts';
import type { ResolvedObject } from './types.ts';

export const DEFAULT_MAX_REVISIONS = 3;

export interface ApprovalResolveContext {
  objects: ReadonlyMap<string, ResolvedObject>;
  /** Declared actions by name; undefined when no actions plugin runs (then no action outcome is accepted). */
  actions?: (name: string) => ResolvedAction | undefined;
  /** Declared flows by name; undefined when no flows plugin runs (then no flow outcome is accepted). */
  flows?: (name: string) => ResolvedFlow | undefined;
}

/** The flow input an outcome fills with the id of the decided record, when the flow declares it. */
export const OUTCOME_RECORD_INPUT = 'record_id';

const unique = (values: readonly string[] | undefined) => [...new Set(values ?? [])];

function resolveOutcome(key: 'onApprove' | 'onReject', outcome: ParsedApprovalProcess['onApprove'], object: string, ctx: ApprovalResolveContext, problems: MetadataProblem[]): ApprovalOutcome | null {
  if (!outcome) return null;
  if (outcome.flow !== undefined) {
    if (outcome.action !== undefined) { problems.push({ path: key, reason: "names an action and a flow: an outcome runs one of them" }); return null; }
    if (!ctx.flows) { problems.push({ path: `${key}.flow`, reason: "flows are not available: the flows plugin is not enabled; run a declared action with 'action' instead" }); return null; }
    const flow = ctx.flows(outcome.flow);
    if (!flow) { problems.push({ path: `${key}.flow`, reason: `unknown flow '${outcome.flow}'` }); return null; }
    if (flow.type !== 'autolaunched' || flow.start?.timeRelative) {
      problems.push({ path: `${key}.flow`, reason: `flow '${flow.name}' is a ${flow.start?.timeRelative ? 'time-relative' : flow.type} flow: an outcome starts autolaunched flows only` });
      return null;
    }
    const input = outcome.input ?? {};
    for (const name of Object.keys(input)) {
      if (name === OUTCOME_RECORD_INPUT || !flow.input[name]) {
        problems.push({ path: `${key}.input.${name}`, reason: name === OUTCOME_RECORD_INPUT ? `'${OUTCOME_RECORD_INPUT}' is filled with the decided record's id` : `flow '${flow.name}' has no input '${name}'; its inputs: ${Object.keys(flow.input).join(', ') || 'none'}` });
      }
    }
    return { flow: flow.name, input };
  }
  if (outcome.action === undefined) {
    problems.push({ path: `${key}.action`, reason: 'is required: the name of a declared record action to run on the record' });
    return null;
  }
  const action = ctx.actions?.(outcome.action);
  if (!ctx.actions) { problems.push({ path: `${key}.action`, reason: 'actions are not available: the actions plugin is not enabled' }); return null; }
  if (!action) { problems.push({ path: `${key}.action`, reason: `unknown action '${outcome.action}'` }); return null; }
  if (action.object !== object) {
    problems.push({ path: `${key}.action`, reason: `action '${action.name}' ${action.object ? `runs on '${action.object}' records` : 'has no object'}; an outcome runs a record action of '${object}'` });
    return null;
  }
  const input = outcome.input ?? {};
  for (const name of Object.keys(input)) {
    if (!action.input[name]) {
      const near = suggest(name, Object.keys(action.input));
      problems.push({ path: `${key}.input.${name}`, reason: `action '${action.name}' has no input '${name}'${near ? ` (did you mean '${near}'?)` : `; its inputs: ${Object.keys(action.input).join(', ') || 'none'}`}` });
    }
  }
  return { action: action.name, input };
}

function clampAt(path: string, declared: number, users: number, what: string, clamps: QuorumClamp[]): void {
  if (declared <= users) return;
  clamps.push({ path, declared, effective: users, reason: `${declared} approvals asked of ${users} ${what}: clamped to ${users} so that the step cannot deadlock` });
}

function resolveSteps(parsed: ParsedApprovalProcess, problems: MetadataProblem[], clamps: QuorumClamp[]): ResolvedApprovalStep[] {
  const steps: ResolvedApprovalStep[] = [];
  const names = new Set<string>();
  parsed.steps.forEach((step, index) => {
    const at = `steps[${index}]`;
    if (names.has(step.name)) problems.push({ path: `${at}.name`, reason: `step '${step.name}' is declared twice; step names are unique within a process` });
    names.add(step.name);
    const signOff = step.signOff ?? 'quorum';
    const groups = step.approvers.groups ?? [];
    const groupNames = new Set<string>();
    groups.forEach((group, g) => {
      if (groupNames.has(group.name)) problems.push({ path: `${at}.approvers.groups[${g}].name`, reason: `group '${group.name}' is declared twice in this step` });
      groupNames.add(group.name);
      if ((group.users ?? []).length + (group.positions ?? []).length === 0) problems.push({ path: `${at}.approvers.groups[${g}]`, reason: 'names no approver: list users or positions' });
      if (signOff !== 'perGroup' && group.minApprovals !== undefined) problems.push({ path: `${at}.approvers.groups[${g}].minApprovals`, reason: "applies with signOff 'perGroup' only; with quorum sign-off the step's minApprovals counts every approver" });
    });
    const users = unique([...(step.approvers.users ?? [])]);
    const positions = unique(step.approvers.positions);
    if (signOff === 'perGroup') {
      if (groups.length === 0) problems.push({ path: `${at}.approvers.groups`, reason: "is required with signOff 'perGroup': the groups that each sign off" });
      if (step.approvers.users !== undefined) problems.push({ path: `${at}.approvers.users`, reason: "does not apply with signOff 'perGroup': every approver belongs to a group" });
      if (step.approvers.positions !== undefined) problems.push({ path: `${at}.approvers.positions`, reason: "does not apply with signOff 'perGroup': every approver belongs to a group" });
      if (step.minApprovals !== undefined) problems.push({ path: `${at}.minApprovals`, reason: "does not apply with signOff 'perGroup': set minApprovals on each group" });
    } else if (users.length + positions.length + groups.length === 0) {
      problems.push({ path: `${at}.approvers`, reason: 'names no approver: list users, positions or groups' });
    }
    if (step.escalateTo && step.slaHours === undefined) problems.push({ path: `${at}.escalateTo`, reason: 'applies with slaHours only: the step is escalated once its SLA is over' });
    if (step.escalateTo && (step.escalateTo.users ?? []).length + (step.escalateTo.positions ?? []).length === 0) problems.push({ path: `${at}.escalateTo`, reason: 'names no one: list users or positions' });
    const minApprovals = step.minApprovals ?? 1;
    // Known at load when only user ids are named; positions are counted when a request reaches the step.
    if (signOff === 'quorum' && positions.length === 0 && groups.every((g) => (g.positions ?? []).length === 0)) {
      const all = new Set([...users, ...groups.flatMap((g) => g.users ?? [])]);
      clampAt(`${at}.minApprovals`, minApprovals, all.size, 'approver(s)', clamps);
    }
    if (signOff === 'perGroup') {
      groups.forEach((group, g) => {
        if ((group.positions ?? []).length === 0) clampAt(`${at}.approvers.groups[${g}].minApprovals`, group.minApprovals ?? 1, unique(group.users).length, `member(s) of group '${group.name}'`, clamps);
      });
    }
    steps.push({
      name: step.name,
      label: step.label ?? humanize(step.name),
      users: signOff === 'perGroup' ? [] : users,
      positions: signOff === 'perGroup' ? [] : positions,
      groups: groups.map((g) => ({ name: g.name, label: g.label ?? humanize(g.name), users: unique(g.users), positions: unique(g.positions), minApprovals: g.minApprovals ?? 1 })),
      signOff,
      minApprovals,
      slaHours: step.slaHours ?? null,
      escalateTo: step.escalateTo ? { users: unique(step.escalateTo.users), positions: unique(step.escalateTo.positions) } : null,
    });
  });
  return steps;
}

/**
 * Semantic checks of a parsed process: the object, the entry condition type-checked (CEL, a
 * boolean over `record`, `user` and `now()`), the steps, the outcomes. Problems carry their path;
 * CEL failures come as METADATA_INVALID errors naming `file` and `when`.
 */
export function resolveApprovalProcess(file: string, app: string | null, parsed: ParsedApprovalProcess, ctx: ApprovalResolveContext): { process: ResolvedApprovalProcess | null; problems: MetadataProblem[]; errors: CodedError[] } {
  const problems: MetadataProblem[] = [];
  const errors: CodedError[] = [];
  if (!SNAKE_CASE.test(parsed.name) || parsed.name.length > 63) problems.push({ path: 'name', reason: `'${parsed.name.slice(0, 80)}' must be snake_case (lowercase letters, digits and single underscores, starting with a letter, at most 63)` });
  const object = ctx.objects.get(parsed.object);
  if (!object) {
    const near = suggest(parsed.object, [...ctx.objects.keys()].filter((n) => !ctx.objects.get(n)!.system));
    problems.push({ path: 'object', reason: `unknown object '${parsed.object}'${near ? ` (did you mean '${near}'?)` : ''}` });
  } else if (object.system) {
    problems.push({ path: 'object', reason: `'${object.name}' is an engine-owned system object; approvals run on app objects` });
  }
  let compiledWhen: CompiledActionExpression | null = null;
  if (parsed.when !== undefined && object && !object.system) {
    try {
      compiledWhen = compileActionExpression(parsed.when, { input: {}, record: { name: object.name, fields: object.fields, owner: object.owner } }, { type: 'boolean' }, { file, path: 'when' });
    } catch (error) {
      errors.push(error as CodedError);
    }
  }
  const clamps: QuorumClamp[] = [];
  const steps = resolveSteps(parsed, problems, clamps);
  const onApprove = resolveOutcome('onApprove', parsed.onApprove, parsed.object, ctx, problems);
  const onReject = resolveOutcome('onReject', parsed.onReject, parsed.object, ctx, problems);
  if (problems.length > 0 || errors.length > 0) return { process: null, problems, errors };
  return {
    process: {
      name: parsed.name,
      label: parsed.label ?? humanize(parsed.name),
      ...(parsed.description !== undefined ? { description: parsed.description } : {}),
      object: parsed.object,
      when: parsed.when ?? null,
      compiledWhen,
      maxRevisions: parsed.maxRevisions ?? DEFAULT_MAX_REVISIONS,
      steps,
      onApprove,
      onReject,
      clamps,
      source: file,
      app,
    },
    problems,
    errors,
  };
}
