import type { DatasetUse } from './datasetSchema.ts';
import type { ResolvedDataset } from './datasetTypes.ts';

export interface DatasetQueryProblem {
  path: string;
  reason: string;
}

/**
 * The structured query (`object` plus the body of POST /data/:object/query) a use of a dataset
 * runs: the chosen dimensions as groupBy, the chosen measures as aggregations aliased by their
 * names, the use's filters ANDed with the dataset's, and the use's limit (at most the dataset's,
 * which is the default). `labels`: each chosen measure's label by its name, the column label of
 * its output key. Problems name the use's keys.
 */
export function datasetQuery(dataset: ResolvedDataset, use: Omit<DatasetUse, 'dataset'>): { query: Record<string, unknown> & { object: string }; labels: Record<string, string>; problems: DatasetQueryProblem[] } {
  const problems: DatasetQueryProblem[] = [];
  const dimensionNames = use.dimensions ?? dataset.dimensions.map((d) => d.field);
  const measureNames = use.measures ?? dataset.measures.map((m) => m.name);
  const groupBy = dimensionNames.flatMap((name, i) => {
    const found = dataset.dimensions.find((d) => d.field === name);
    if (!found) {
      problems.push({ path: `dimensions[${i}]`, reason: `dataset '${dataset.name}' has no dimension '${name}'; its dimensions: ${dataset.dimensions.map((d) => d.field).join(', ') || 'none'}` });
      return [];
    }
    return [found.dateGranularity ? { field: found.field, dateGranularity: found.dateGranularity } : found.field];
  });
  const aggregations = measureNames.flatMap((name, i) => {
    const found = dataset.measures.find((m) => m.name === name);
    if (!found) {
      problems.push({ path: `measures[${i}]`, reason: `dataset '${dataset.name}' has no measure '${name}'; its measures: ${dataset.measures.map((m) => m.name).join(', ') || 'none'}` });
      return [];
    }
    return [{ function: found.aggregation, ...(found.field !== undefined ? { field: found.field } : {}), alias: found.name }];
  });
  if (groupBy.length === 0 && aggregations.length === 0 && problems.length === 0) {
    problems.push({ path: 'measures', reason: 'a use of a dataset needs at least one dimension or measure' });
  }
  if (use.limit !== undefined && dataset.limit !== undefined && use.limit > dataset.limit) {
    problems.push({ path: 'limit', reason: `dataset '${dataset.name}' answers at most ${dataset.limit} rows (its limit); ask for at most ${dataset.limit}` });
  }
  const limit = use.limit ?? dataset.limit;
  const labels = Object.fromEntries(measureNames.flatMap((name) => dataset.measures.filter((m) => m.name === name).map((m) => [m.name, m.label] as const)));
  const where = dataset.where && use.where ? { $and: [dataset.where, use.where] } : (use.where ?? dataset.where);
  return {
    query: {
      object: dataset.object,
      ...(where !== undefined ? { where } : {}),
      ...(groupBy.length > 0 ? { groupBy } : {}),
      ...(aggregations.length > 0 ? { aggregations } : {}),
      ...(use.orderBy !== undefined ? { orderBy: use.orderBy } : {}),
      ...(limit !== undefined ? { limit } : {}),
    },
    labels,
    problems,
  };
}
