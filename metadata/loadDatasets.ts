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
  return { datasets, errors };
}
