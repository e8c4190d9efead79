import type { DataContext, DataEngine, DataRecord } from '../../capabilities/dataEngine.ts';
import type { ExportColumn } from '../../capabilities/ioExport.ts';
import type { MetadataRegistry } from '../../capabilities/metadataRegistry.ts';
import { apiObject } from '../../metadata/apiObject.ts';
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
 * Runs a stored structured query (`object` plus the body of POST /data/:object/query) through the
 * data engine as `ctx`: the engine applies the caller's row and field security and answers a field
 * the caller may not read with the errors of the data route. One page: the query's limit, or the
 * object's maxPageSize when it names none or more.
 */
export async function runQuery(engine: DataEngine, metadata: MetadataRegistry, stored: Record<string, unknown>, ctx: DataContext): Promise<QueryRun> {
  const object = apiObject(metadata, String(stored.object), isAggregate(stored) ? 'aggregate' : 'list');
  const query: Record<string, unknown> = { ...stored };
  // A whole number over the cap (a JSON number or a string of digits) is brought down to it, as on the data route.
  const limit = query.limit;
  const over = typeof limit === 'number' ? Number.isInteger(limit) && limit > object.maxPageSize : typeof limit === 'string' && /^\d{1,400}$/.test(limit) && Number(limit) > object.maxPageSize;
  if (limit === undefined || over) query.limit = object.maxPageSize;
  const result = await engine.query(object.name, query, ctx, { total: false });
  const truncated = Boolean(result.nextCursor) || (isAggregate(stored) && result.items.length >= Number(query.limit));
  return { object, items: result.items, columns: reportColumns(object, stored, result.items), truncated };
}
