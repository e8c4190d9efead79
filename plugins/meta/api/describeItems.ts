import { relative } from 'node:path';
import { humanize } from '../../../metadata/names.ts';
import type { ResolvedAction } from '../../../metadata/actionTypes.ts';
import type { ResolvedFlow } from '../../../metadata/flowTypes.ts';
import { startableByAction } from '../../../metadata/checkFlowActions.ts';
import type { ResolvedDashboard } from '../../../metadata/dashboardTypes.ts';
import type { ResolvedDataset } from '../../../metadata/datasetTypes.ts';
import type { ResolvedAgent } from '../../../metadata/agentTypes.ts';
import type { LoadedApp, ResolvedBook, ResolvedField, ResolvedObject, SelectOption } from '../../../metadata/types.ts';
import type { FieldDoc } from './viewDocs.ts';

export type Doc = Record<string, unknown>;

export type { FieldDoc } from './viewDocs.ts';

export interface ObjectDoc extends Doc {
  name: string;
  label: string;
  pluralLabel: string;
  description?: string;
  fields: Record<string, FieldDoc>;
  views: Record<string, unknown>;
}

/** A declaration file's path inside its app (never the server's directory layout). */
export function sourceIn(source: string, dir: string | undefined): string {
  return dir && source.startsWith(dir) ? relative(dir, source) : source;
}

export function describeField(field: ResolvedField): FieldDoc {
  const { compiled: _compiled, conditions: _conditions, optionValues: _values, name: _name, options, ...rest } = field;
  const doc: FieldDoc = { ...rest };
  if (options) {
    doc.options = options.map((o: string | SelectOption) =>
      typeof o === 'string' ? { value: o, label: humanize(o) } : { value: o.value, label: o.label ?? humanize(o.value) });
  }
  return doc;
}

/**
 * An object as the metadata API shows it: the declaration with the loader's defaults, options as
 * `{value, label}`, expressions as their source, its package, and `views`: those of views/*.json
 * (packages and overlays add more). Row policies only with `policies: true`.
 */
export function describeObject(object: ResolvedObject, dirs: ReadonlyMap<string, string>, show: { policies: boolean }, views: Record<string, unknown> = {}): ObjectDoc {
  const { fields, validationRules, source, app, policies, ...rest } = object;
  return {
    ...rest,
    ...(show.policies ? { policies } : {}),
    package: app,
    source: sourceIn(source, dirs.get(app)),
    fields: Object.fromEntries(Object.entries(fields).map(([name, field]) => [name, describeField(field)])),
    validationRules: validationRules.map(({ compiled: _compiled, ...rule }) => rule),
    views,
  };
}

export function describeBook(book: ResolvedBook, dirs: ReadonlyMap<string, string>): Doc {
  const { source, app, ...rest } = book;
  return { ...rest, package: app, source: sourceIn(source, dirs.get(app)) };
}

/** An action as declared (expressions as their source), with its route, package and source file. */
export function describeAction(action: ResolvedAction, dirs: ReadonlyMap<string, string>): Doc {
  const { source, app, assignments: _assignments, ...rest } = action;
  return { ...rest, route: `POST /api/v1/actions/${action.name}`, package: app, source: sourceIn(source, dirs.get(app)) };
}

/** A flow as declared (expressions as their source), with its start route when the API starts it, package and source file. */
export function describeFlow(flow: ResolvedFlow, dirs: ReadonlyMap<string, string>): Doc {
  const { definition, app, source } = flow;
  const startable = startableByAction(flow);
  return {
    ...definition, label: flow.label, runAs: flow.runAs, input: flow.input,
    route: startable ? `POST /api/v1/flows/${flow.name}/start` : null,
    ...(flow.hook ? { hookRoute: `POST /api/v1/automation/hooks/${flow.name}/${flow.hook.id}` } : {}),
    package: app, source: sourceIn(source, dirs.get(app)),
  };
}

/** A dashboard as declared, with its run route, package and source file. */
export function describeDashboard(dashboard: ResolvedDashboard, dirs: ReadonlyMap<string, string>): Doc {
  const { source, app, ...rest } = dashboard;
  return { ...rest, route: `POST /api/v1/dashboards/${dashboard.name}/run`, package: app, source: sourceIn(source, dirs.get(app)) };
}

/** A dataset as declared, with its package and source file. */
export function describeDataset(dataset: ResolvedDataset, dirs: ReadonlyMap<string, string>): Doc {
  const { source, app, ...rest } = dataset;
  return { ...rest, package: app, source: sourceIn(source, dirs.get(app)) };
}

/** An agent as declared, with its package and source file; its `instructions` only with `instructions: true` (policyAudience.ts). */
export function describeAgent(agent: ResolvedAgent, dirs: ReadonlyMap<string, string>, options: { instructions: boolean }): Doc {
  const { source, app, instructions, ...rest } = agent;
  return { ...rest, ...(options.instructions ? { instructions } : {}), package: app, source: sourceIn(source, dirs.get(app)) };
}

export function describeApp(app: LoadedApp): Doc {
  return {
    ...app.manifest,
    label: app.manifest.label ?? humanize(app.manifest.name),
    objects: app.objects.map((o) => o.name),
    books: app.books.map((b) => b.name),
    overrides: app.overrides.map((o) => o.object),
    actions: app.actions.map((a) => a.name),
    flows: app.flows.map((f) => f.name),
    agents: app.agents.map((a) => a.name),
  };
}
