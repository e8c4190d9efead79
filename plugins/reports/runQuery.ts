import type { DataContext, DataEngine, DataRecord } from '../../capabilities/dataEngine.ts';
import type { ExportColumn } from '../../capabilities/ioExport.ts';
import type { MetadataRegistry } from '../../capabilities/metadataRegistry.ts';
import { codedError } from '../../kernel/errors.ts';
import { apiObject } from '../../metadata/apiObject.ts';
import { datasetQuery } from '../../metadata/datasetQuery.ts';
import type { DatasetUse } from '../../metadata/datasetSchema.ts';
import type { ResolvedObject } from '../../metadata/types.ts';
import { reportColumns } from './reportColumns.ts';

export interface QueryRun {
  object: ResolvedObject;
  /** The rows, exactly as POST /data/:object/query answers them to the same caller. */
  items: DataRecord[];
  columns: ExportColumn[];
  /** More rows match than the report returns (its limit, at most the object's maxPageSize). */
  truncated: boolean;
}

const isAggregate = (query: Record<string, unknown>) => query.groupBy !== undefined || query.aggregations !== undefined;

/**
 * A use of a declared dataset compiled: its structured query and its measures' labels by output
 * key; NOT_FOUND for an unknown dataset, VALIDATION_ERROR (paths under `at`) for a dimension or
 * measure it does not have, or a limit over its own.
 */
export function compileDatasetUse(metadata: MetadataRegistry, use: DatasetUse, at = ''): { query: Record<string, unknown> & { object: string }; labels: Record<string, string> } {
  const dataset = metadata.apps().flatMap((app) => app.datasets ?? []).find((d) => d.name === use.dataset);
  if (!dataset) throw codedError('NOT_FOUND', { what: `Dataset '${String(use.dataset).slice(0, 63)}'`, dataset: String(use.dataset).slice(0, 63) });
  const { query, labels, problems } = datasetQuery(dataset, use);
  if (problems.length > 0) {
    const errors = problems.map((p) => ({ path: at ? `${at}.${p.path}` : p.path, message: p.reason }));
    throw codedError('VALIDATION_ERROR', { summary: errors.map((e) => `${e.path} ${e.message}`).join('; '), errors });
  }
  return { query, labels };
}

/** The structured query of a use of a declared dataset (compileDatasetUse without the labels). */
export function datasetUseQuery(metadata: MetadataRegistry, use: DatasetUse, at = ''): Record<string, unknown> & { object: string } {
  return compileDatasetUse(metadata, use, at).query;
}

/**
 * Runs a stored structured query (`object` plus the body of POST /data/:object/query) through the
 * data engine as `ctx`: the engine applies the caller's row and field security and answers a field
 * the caller may not read with the errors of the data route. One page: the query's limit, or the
 * object's maxPageSize when it names none or more. `labels`: column labels by output key (a
 * dataset's measures), over the ones the object gives.
 */
export async function runQuery(engine: DataEngine, metadata: MetadataRegistry, saved: Record<string, unknown>, ctx: DataContext, labels: Record<string, string> = {}): Promise<QueryRun> {
  // A use of a dataset (a report's `{ dataset, ... }`) runs the query the dataset compiles to, its measures labelled as declared.
  const compiled = saved.dataset !== undefined ? compileDatasetUse(metadata, saved as DatasetUse, 'query') : { query: saved, labels };
  const stored = compiled.query;
  const object = apiObject(metadata, String(stored.object), isAggregate(stored) ? 'aggregate' : 'list');
  const query: Record<string, unknown> = { ...stored };
  // A whole number over the cap (a JSON number or a string of digits) is brought down to it, as on the data route.
  const limit = query.limit;
  const over = typeof limit === 'number' ? Number.isInteger(limit) && limit > object.maxPageSize : typeof limit === 'string' && /^\d{1,400}$/.test(limit) && Number(limit) > object.maxPageSize;
  if (limit === undefined || over) query.limit = object.maxPageSize;
  const result = await engine.query(object.name, query, ctx, { total: false });
  const truncated = Boolean(result.nextCursor) || (isAggregate(stored) && result.items.length >= Number(query.limit));
  return { object, items: result.items, columns: reportColumns(object, stored, result.items, compiled.labels), truncated };
}
