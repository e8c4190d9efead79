import { join } from 'node:path';
import type { CodedError } from '../kernel/errors.ts';
import { PARSE_ONCE } from '../kernel/parseOnce.ts';
import { checkStructuredQuery } from './checkStructuredQuery.ts';
import { datasetQuery } from './datasetQuery.ts';
import { datasetDefinitionSchema, type ParsedDataset } from './datasetSchema.ts';
import type { ResolvedDataset } from './datasetTypes.ts';
import { describeIssues } from './describeIssues.ts';
import { metadataError, type MetadataProblem } from './metadataError.ts';
import { humanize, SNAKE_CASE } from './names.ts';
import { readDeclarationDir } from './readDeclarationDir.ts';
import type { ResolvedObject } from './types.ts';

export interface DatasetSource {
  dir: string;
  app: string;
}

function resolveDataset(file: string, app: string, parsed: ParsedDataset, objects: ReadonlyMap<string, ResolvedObject>): { dataset: ResolvedDataset | null; problems: MetadataProblem[] } {
  const problems: MetadataProblem[] = [];
  const dimensions = parsed.dimensions.map((d) => (typeof d === 'string' ? { field: d } : { field: d.field, ...(d.dateGranularity ? { dateGranularity: d.dateGranularity } : {}) }));
  dimensions.forEach((d, i) => {
    if (dimensions.findIndex((o) => o.field === d.field) !== i) problems.push({ path: `dimensions[${i}]`, reason: `field '${d.field}' is a dimension twice; a dimension is named by its field` });
  });
  parsed.measures.forEach((m, i) => {
    if (parsed.measures.findIndex((o) => o.name === m.name) !== i) problems.push({ path: `measures[${i}].name`, reason: `measure '${m.name}' is declared twice` });
    if (dimensions.some((d) => d.field === m.name)) problems.push({ path: `measures[${i}].name`, reason: `'${m.name}' is also a dimension; name the measure otherwise` });
  });
  if (dimensions.length === 0 && parsed.measures.length === 0) problems.push({ path: 'measures', reason: 'a dataset declares at least one dimension or measure' });
  if (parsed.materialized) problems.push(...materializedProblems(parsed, dimensions, objects.get(parsed.object)));
  const dataset: ResolvedDataset = {
    name: parsed.name,
    label: parsed.label ?? humanize(parsed.name),
    ...(parsed.description !== undefined ? { description: parsed.description } : {}),
    object: parsed.object,
    ...(parsed.where !== undefined ? { where: parsed.where } : {}),
    dimensions,
    measures: parsed.measures.map((m) => ({ name: m.name, aggregation: m.aggregation, ...(m.field !== undefined ? { field: m.field } : {}), label: m.label ?? humanize(m.name) })),
    ...(parsed.freshnessMs !== undefined ? { freshnessMs: parsed.freshnessMs } : {}),
    ...(parsed.limit !== undefined ? { limit: parsed.limit } : {}),
    ...(parsed.materialized ? { materialized: true } : {}),
    source: file,
    app,
  };
  if (problems.length > 0) return { dataset: null, problems };
  // The whole dataset (every dimension and measure, its base filter, its limit against the object's
  // maxPageSize) is one query the engine's parser checks.
  const { query } = datasetQuery(dataset, {});
  for (const problem of checkStructuredQuery(query, '', objects)) {
    problems.push({ path: datasetPath(problem.path, dataset), reason: problem.reason });
  }
  return problems.length > 0 ? { dataset: null, problems } : { dataset, problems };
}

/** The most dimensions a materialized dataset keeps counts by, and materialized datasets per object. */
export const MATERIALIZED_DIMENSIONS = 4;
export const MATERIALIZED_PER_OBJECT = 3;
/** Table names: `osr_rollup_` and the dataset's name within PostgreSQL's 63 characters. */
const MATERIALIZED_NAME = 52;
const UNKEPT_TYPES = new Set(['textarea', 'json', 'multiselect', 'formula']);

/**
 * What a materialized dataset may declare: counts (of every row: no base filter) by at most
 * MATERIALIZED_DIMENSIONS plain stored fields, whose combinations the database keeps a count of.
 */
function materializedProblems(parsed: ParsedDataset, dimensions: ResolvedDataset['dimensions'], object: ResolvedObject | undefined): MetadataProblem[] {
  const problems: MetadataProblem[] = [];
  if (parsed.name.length > MATERIALIZED_NAME) problems.push({ path: 'name', reason: `a materialized dataset's name is at most ${MATERIALIZED_NAME} characters (its table is osr_rollup_<name>)` });
  if (parsed.where !== undefined) problems.push({ path: 'where', reason: 'a materialized dataset counts every row of its object: it takes no base filter (filter its uses instead, or leave materialized out)' });
  if (dimensions.length === 0) problems.push({ path: 'dimensions', reason: 'a materialized dataset keeps counts by at least one dimension' });
  if (dimensions.length > MATERIALIZED_DIMENSIONS) problems.push({ path: 'dimensions', reason: `a materialized dataset keeps counts by at most ${MATERIALIZED_DIMENSIONS} dimensions (${dimensions.length} declared)` });
  dimensions.forEach((d, i) => {
    if (d.dateGranularity) problems.push({ path: `dimensions[${i}].dateGranularity`, reason: 'a materialized dataset keeps plain field values: leave the bucket out, or leave materialized out' });
    const type = object?.fields[d.field]?.type;
    if (type && UNKEPT_TYPES.has(type)) problems.push({ path: `dimensions[${i}]`, reason: `a materialized dataset cannot keep counts by '${d.field}', a ${type} field (kept: text, number, boolean, date, select and lookup fields and the system fields)` });
  });
  parsed.measures.forEach((m, i) => {
    if (m.aggregation !== 'count' || m.field !== undefined) problems.push({ path: `measures[${i}].aggregation`, reason: `a materialized dataset keeps counts of rows only ('${m.aggregation}'${m.field ? ` of '${m.field}'` : ''} is computed from the rows: declare it in a dataset that is not materialized)` });
  });
  return problems;
}

/** A path of the compiled query, said in the dataset's own keys. */
function datasetPath(path: string, dataset: ResolvedDataset): string {
  const bare = path.replace(/^\./, '');
  const group = /^groupBy\[(\d+)\]/.exec(bare);
  if (group) return `dimensions[${group[1]}]${bare.slice(group[0].length).replace(/^\.field/, dataset.dimensions[Number(group[1])]?.dateGranularity ? '.field' : '')}`;
  const aggregation = /^aggregations\[(\d+)\]\.function/.exec(bare);
  if (aggregation) return `measures[${aggregation[1]}].aggregation${bare.slice(aggregation[0].length)}`;
  return bare.replace(/^aggregations\[(\d+)\]\.alias/, 'measures[$1].name').replace(/^aggregations\[/, 'measures[');
}

/**
 * Reads datasets/<name>.{json,ts} of every app: strict at every level, names unique across apps,
 * each dataset's query (base filter, dimensions, measures, limit within the object's maxPageSize)
 * type-checked against its object.
 */
export async function loadDatasets(sources: DatasetSource[], objects: ReadonlyMap<string, ResolvedObject>): Promise<{ datasets: Map<string, ResolvedDataset[]>; errors: CodedError[] }> {
  const errors: CodedError[] = [];
  const datasets = new Map<string, ResolvedDataset[]>();
  const declaredIn = new Map<string, string>();
  for (const { dir, app } of sources) {
    const read = await readDeclarationDir(join(dir, 'datasets'), 'datasets');
    errors.push(...read.errors);
    const loaded: ResolvedDataset[] = [];
    for (const { file, stem, ext, value } of read.declarations) {
      const parsed = datasetDefinitionSchema.safeParse(value, PARSE_ONCE);
      const problems = parsed.success ? [] : describeIssues(datasetDefinitionSchema, value, parsed.error.issues);
      const name = (value as { name?: unknown } | null)?.name;
      if (typeof name === 'string') {
        if (!SNAKE_CASE.test(name) || name.length > 63) problems.push({ path: 'name', reason: `'${name.slice(0, 80)}' must be snake_case (lowercase letters, digits and single underscores, starting with a letter, at most 63)` });
        if (name !== stem) problems.push({ path: 'name', reason: `dataset '${name}' must be declared in a file named ${name}${ext}` });
        const other = declaredIn.get(name);
        if (other) problems.push({ path: 'name', reason: `dataset '${name}' is already declared in ${other}` });
        else declaredIn.set(name, file);
      }
      if (parsed.success && problems.length === 0) {
        const resolved = resolveDataset(file, app, parsed.data, objects);
        problems.push(...resolved.problems);
        if (resolved.dataset) loaded.push(resolved.dataset);
      }
      errors.push(...problems.map((p) => metadataError(file, p.path, p.reason)));
    }
    datasets.set(app, loaded);
  }
  const materialized = new Map<string, number>();
  for (const list of datasets.values()) {
    for (const dataset of list) {
      if (!dataset.materialized) continue;
      const n = (materialized.get(dataset.object) ?? 0) + 1;
      materialized.set(dataset.object, n);
      if (n > MATERIALIZED_PER_OBJECT) errors.push(metadataError(dataset.source, 'materialized', `object '${dataset.object}' has at most ${MATERIALIZED_PER_OBJECT} materialized datasets (each write of it updates every one)`));
    }
  }
  return { datasets, errors };
}
