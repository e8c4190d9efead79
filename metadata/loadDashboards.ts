import { join } from 'node:path';
import type { CodedError } from '../kernel/errors.ts';
import { suggest } from '../kernel/suggest.ts';
import { checkStructuredQuery } from './checkStructuredQuery.ts';
import { datasetQuery } from './datasetQuery.ts';
import type { ResolvedDataset } from './datasetTypes.ts';
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

/** What an inline query in a widget becomes: a load error that says what to write instead. */
const INLINE_QUERY = 'inline widget queries are replaced by datasets: declare the query in datasets/<name>.json (object, where, dimensions, measures) and reference it here with "dataset": "<name>" plus the "dimensions", "measures" and "where" the widget shows (docs/datasets.md)';

const USE_KEYS = ['dimensions', 'measures', 'where', 'orderBy', 'limit'] as const;

function resolveDashboard(file: string, app: string, parsed: ParsedDashboard, objects: ReadonlyMap<string, ResolvedObject>, datasets: ReadonlyMap<string, ResolvedDataset>): { dashboard: ResolvedDashboard | null; problems: MetadataProblem[] } {
  const problems: MetadataProblem[] = [];
  const ids = new Set<string>();
  const widgets: ResolvedWidget[] = parsed.widgets.map((widget, i) => {
    const at = formatPath(['widgets', i]);
    if (ids.has(widget.id)) problems.push({ path: `${at}.id`, reason: `widget id '${widget.id}' is used twice in this dashboard` });
    ids.add(widget.id);
    if (widget.query !== undefined) problems.push({ path: `${at}.query`, reason: INLINE_QUERY });
    else if ((widget.report === undefined) === (widget.dataset === undefined)) problems.push({ path: at, reason: 'a widget takes exactly one of dataset (a declared dataset\'s name) or report (a stored report id)' });
    if (widget.chart !== undefined && widget.type !== 'chart') problems.push({ path: `${at}.chart`, reason: `applies to chart widgets only, not ${widget.type}` });
    if (widget.report !== undefined) {
      for (const key of USE_KEYS) if (widget[key] !== undefined) problems.push({ path: `${at}.${key}`, reason: 'applies to dataset widgets only; a report widget shows its report as saved' });
    }
    if (widget.dataset !== undefined) {
      const dataset = datasets.get(widget.dataset);
      if (!dataset) {
        const near = suggest(widget.dataset, [...datasets.keys()]);
        problems.push({ path: `${at}.dataset`, reason: `unknown dataset '${widget.dataset}'${near ? ` (did you mean '${near}'?)` : `; declared datasets: ${[...datasets.keys()].sort().join(', ') || 'none'}`}` });
      } else {
        const { query, problems: useProblems } = datasetQuery(dataset, widget);
        problems.push(...useProblems.map((p) => ({ path: `${at}.${p.path}`, reason: p.reason })));
        if (useProblems.length === 0) {
          // The compiled query's paths are the widget's own keys (where, orderBy, limit) or the dataset's.
          const queryProblems = checkStructuredQuery(query, at, objects);
          problems.push(...queryProblems);
          const shape = queryProblems.length === 0 ? widgetShapeProblem(widget.type, query) : null;
          if (shape) problems.push({ path: `${at}.${shape.path === 'groupBy' ? 'dimensions' : 'measures'}`, reason: shape.reason.replace('its query needs groupBy', 'it needs dimensions').replace('its query needs aggregations', 'it needs measures').replace('its query must not group', 'it must not have dimensions (set "dimensions": [])') });
        }
      }
    }
    return {
      id: widget.id,
      type: widget.type,
      title: widget.title ?? humanize(widget.id),
      ...(widget.chart !== undefined ? { chart: widget.chart } : {}),
      ...(widget.report !== undefined ? { report: widget.report } : {}),
      ...(widget.dataset !== undefined ? { dataset: widget.dataset } : {}),
      ...Object.fromEntries(USE_KEYS.filter((key) => widget[key] !== undefined).map((key) => [key, widget[key]])),
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
 * a widget is an error naming its path), names unique across apps, every widget's dataset use
 * compiled and type-checked against its object; an inline query is an error naming the fix. Returns the valid dashboards by app and every problem.
 */
export async function loadDashboards(sources: DashboardSource[], objects: ReadonlyMap<string, ResolvedObject>, datasets: ReadonlyMap<string, ResolvedDataset> = new Map()): Promise<{ dashboards: Map<string, ResolvedDashboard[]>; errors: CodedError[] }> {
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
        const resolved = resolveDashboard(file, app, parsed.data, objects, datasets);
        problems.push(...resolved.problems);
        if (resolved.dashboard) loaded.push(resolved.dashboard);
      }
      errors.push(...problems.map((p) => metadataError(file, p.path, p.reason)));
    }
    dashboards.set(app, loaded);
  }
  return { dashboards, errors };
}
