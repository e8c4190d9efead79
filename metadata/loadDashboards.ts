import { join } from 'node:path';
import { isCodedError, type CodedError } from '../kernel/errors.ts';
import { suggest } from '../kernel/suggest.ts';
import { parseQuery } from '../plugins/data/query/parseQuery.ts';
import { dashboardDefinitionSchema, type ParsedDashboard } from './dashboardSchema.ts';
import type { ResolvedDashboard, ResolvedWidget } from './dashboardTypes.ts';
import { describeIssues } from './describeIssues.ts';
import { formatPath, metadataError, type MetadataProblem } from './metadataError.ts';
import { humanize, SNAKE_CASE } from './names.ts';
import { readDeclarationDir } from './readDeclarationDir.ts';
import type { ResolvedObject } from './types.ts';
import { widgetShapeProblem } from './widgetShape.ts';
import { PARSE_ONCE } from '../kernel/parseOnce.ts';

export interface DashboardSource {
  dir: string;
  app: string;
}

/** Query keys a widget cannot keep: a page position means nothing to a dashboard. */
const PAGING_KEYS = ['cursor', 'offset'];

/**
 * Type-checks a widget's query against the object schema with the data engine's own query parser
 * (every field, operator, alias and value type), without a caller: field-level security applies
 * when the dashboard runs, as the caller.
 */
function checkQuery(query: Record<string, unknown>, at: string, objects: ReadonlyMap<string, ResolvedObject>): MetadataProblem[] {
  const name = query.object;
  if (typeof name !== 'string') return [{ path: `${at}.object`, reason: 'is required: the name of the object the query reads' }];
  const object = objects.get(name);
  if (!object) {
    const near = suggest(name, [...objects.keys()]);
    return [{ path: `${at}.object`, reason: `unknown object '${name}'${near ? ` (did you mean '${near}'?)` : ''}` }];
  }
  if (!object.apiEnabled) return [{ path: `${at}.object`, reason: `object '${name}' has apiEnabled false: no widget can read it` }];
  const problems: MetadataProblem[] = PAGING_KEYS.filter((key) => query[key] !== undefined).map((key) => ({ path: `${at}.${key}`, reason: `a widget shows the first rows of its query; drop ${key}` }));
  try {
    parseQuery(query, object, { get: (n) => objects.get(n) });
  } catch (error) {
    if (!isCodedError(error)) throw error;
    const errors = (error.details.errors as Array<{ path: string; message: string }> | undefined) ?? [{ path: typeof error.details.path === 'string' ? error.details.path : '', message: error.message }];
    for (const e of errors) problems.push({ path: e.path ? `${at}.${e.path}` : at, reason: e.message });
  }
  return problems;
}

function resolveDashboard(file: string, app: string, parsed: ParsedDashboard, objects: ReadonlyMap<string, ResolvedObject>): { dashboard: ResolvedDashboard | null; problems: MetadataProblem[] } {
  const problems: MetadataProblem[] = [];
  const ids = new Set<string>();
  const widgets: ResolvedWidget[] = parsed.widgets.map((widget, i) => {
    const at = formatPath(['widgets', i]);
    if (ids.has(widget.id)) problems.push({ path: `${at}.id`, reason: `widget id '${widget.id}' is used twice in this dashboard` });
    ids.add(widget.id);
    if ((widget.report === undefined) === (widget.query === undefined)) problems.push({ path: at, reason: 'a widget takes exactly one of report (a stored report id) or query (a structured query)' });
    if (widget.chart !== undefined && widget.type !== 'chart') problems.push({ path: `${at}.chart`, reason: `applies to chart widgets only, not ${widget.type}` });
    if (widget.query !== undefined) {
      const queryProblems = checkQuery(widget.query, `${at}.query`, objects);
      problems.push(...queryProblems);
      const shape = queryProblems.length === 0 ? widgetShapeProblem(widget.type, widget.query) : null;
      if (shape) problems.push({ path: `${at}.query.${shape.path}`, reason: shape.reason });
    }
    return {
      id: widget.id,
      type: widget.type,
      title: widget.title ?? humanize(widget.id),
      ...(widget.chart !== undefined ? { chart: widget.chart } : {}),
      ...(widget.report !== undefined ? { report: widget.report } : {}),
      ...(widget.query !== undefined ? { query: widget.query as ResolvedWidget['query'] & object } : {}),
    };
  });
  if (problems.length > 0) return { dashboard: null, problems };
  return {
    dashboard: {
      name: parsed.name,
      label: parsed.label ?? humanize(parsed.name),
      ...(parsed.description !== undefined ? { description: parsed.description } : {}),
      widgets,
      source: file,
      app,
    },
    problems,
  };
}

/**
 * Reads dashboards/<name>.{json,ts} of every app: schema strict at every level (an unknown key of
 * a widget is an error naming its path), names unique across apps, every widget query type-checked
 * against its object. Returns the valid dashboards by app and every problem.
 */
export async function loadDashboards(sources: DashboardSource[], objects: ReadonlyMap<string, ResolvedObject>): Promise<{ dashboards: Map<string, ResolvedDashboard[]>; errors: CodedError[] }> {
  const errors: CodedError[] = [];
  const dashboards = new Map<string, ResolvedDashboard[]>();
  const declaredIn = new Map<string, string>();
  for (const { dir, app } of sources) {
    const read = await readDeclarationDir(join(dir, 'dashboards'), 'dashboards');
    errors.push(...read.errors);
    const loaded: ResolvedDashboard[] = [];
    for (const { file, stem, ext, value } of read.declarations) {
      const parsed = dashboardDefinitionSchema.safeParse(value, PARSE_ONCE);
      const problems = parsed.success ? [] : describeIssues(dashboardDefinitionSchema, value, parsed.error.issues);
      const name = (value as { name?: unknown } | null)?.name;
      if (typeof name === 'string') {
        if (!SNAKE_CASE.test(name) || name.length > 63) problems.push({ path: 'name', reason: `'${name.slice(0, 80)}' must be snake_case (lowercase letters, digits and single underscores, starting with a letter, at most 63)` });
        if (name !== stem) problems.push({ path: 'name', reason: `dashboard '${name}' must be declared in a file named ${name}${ext}` });
        const other = declaredIn.get(name);
        if (other) problems.push({ path: 'name', reason: `dashboard '${name}' is already declared in ${other}` });
        else declaredIn.set(name, file);
      }
      if (parsed.success && problems.length === 0) {
        const resolved = resolveDashboard(file, app, parsed.data, objects);
        problems.push(...resolved.problems);
        if (resolved.dashboard) loaded.push(resolved.dashboard);
      }
      errors.push(...problems.map((p) => metadataError(file, p.path, p.reason)));
    }
    dashboards.set(app, loaded);
  }
  return { dashboards, errors };
}
