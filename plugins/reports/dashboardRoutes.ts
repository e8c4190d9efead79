import type { FastifyRequest } from 'fastify';
import { dataContextOf, type DataEngine } from '../../capabilities/dataEngine.ts';
import type { HttpRoutes } from '../../capabilities/httpRoutes.ts';
import type { MetadataRegistry } from '../../capabilities/metadataRegistry.ts';
import type { ResolvedDashboard, ResolvedWidget } from '../../metadata/dashboardTypes.ts';
import { widgetShapeProblem } from '../../metadata/widgetShape.ts';
import { codedError, isCodedError } from '../../kernel/errors.ts';
import { callerOf } from './reportRoutes.ts';
import type { ReportStore } from './reportStore.ts';
import type { DatasetRunner } from './runDataset.ts';
import { runQuery, datasetUseQuery } from './runQuery.ts';

const nameParams = { type: 'object', properties: { name: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,62}$' } }, required: ['name'] };

function describe(dashboard: ResolvedDashboard) {
  const { source: _source, app, ...rest } = dashboard;
  return { ...rest, package: app };
}

/** GET /dashboards, GET /dashboards/:name (the declarations) and POST /dashboards/:name/run (each widget's data, as the caller). */
export function addDashboardRoutes(routes: HttpRoutes, deps: { engine: DataEngine; metadata: MetadataRegistry; store: ReportStore; datasets: DatasetRunner }): void {
  const { engine, metadata, store, datasets } = deps;
  const all = () => metadata.apps().flatMap((app) => app.dashboards);
  const byName = (name: string) => {
    const found = all().find((d) => d.name === name);
    if (!found) throw codedError('NOT_FOUND', { what: `Dashboard '${name}'`, name });
    return found;
  };

  /** A widget's rows as the caller may read them; a failure (a hidden field, a report it may not read) stays in the widget. */
  async function runWidget(request: FastifyRequest, widget: ResolvedWidget) {
    const head = { id: widget.id, type: widget.type, title: widget.title, ...(widget.chart ? { chart: widget.chart } : {}) };
    try {
      let run;
      if (widget.dataset !== undefined) {
        const { id: _id, type: _type, title: _title, chart: _chart, report: _report, dataset, ...use } = widget;
        run = await datasets.run({ dataset, ...use } as Parameters<DatasetRunner['run']>[0], dataContextOf(request));
      } else {
        const saved = (await store.readable(request.environmentId, widget.report!, callerOf(request))).query;
        const query = saved.dataset !== undefined ? datasetUseQuery(metadata, saved as unknown as Parameters<DatasetRunner['run']>[0], 'query') : saved;
        const shape = widgetShapeProblem(widget.type, query);
        if (shape) throw codedError('VALIDATION_ERROR', { summary: `report '${widget.report}' does not fit a ${widget.type} widget: ${shape.reason}`, errors: [{ path: `query.${shape.path}`, message: shape.reason }] });
        run = await runQuery(engine, metadata, saved, dataContextOf(request));
      }
      return { ...head, items: run.items, columns: run.columns, truncated: run.truncated };
    } catch (error) {
      if (!isCodedError(error) || error.status >= 500) throw error;
      return { ...head, error: error.toJSON() };
    }
  }

  routes.add({
    method: 'GET', path: '/dashboards', tags: ['dashboards'],
    summary: 'Dashboards declared in metadata (dashboards/<name>.json), with their widgets',
    handler: (request) => {
      callerOf(request);
      return { items: all().map(describe) };
    },
  });
  routes.add({
    method: 'GET', path: '/dashboards/:name', tags: ['dashboards'],
    summary: 'One declared dashboard',
    schema: { params: nameParams },
    handler: (request) => {
      callerOf(request);
      return describe(byName((request.params as { name: string }).name));
    },
  });
  routes.add({
    method: 'POST', path: '/dashboards/:name/run', tags: ['dashboards'], scope: 'data:read',
    summary: "Every widget's data, run as the caller: { name, label, widgets: [{ id, type, title, items, columns, truncated } or { ..., error }] }",
    schema: { params: nameParams },
    handler: async (request) => {
      callerOf(request);
      const dashboard = byName((request.params as { name: string }).name);
      const widgets = [];
      // One after the other: a dashboard's cost is bounded by its widgets (at most 50), each one page.
      for (const widget of dashboard.widgets) widgets.push(await runWidget(request, widget));
      return { name: dashboard.name, label: dashboard.label, widgets };
    },
  });
}
