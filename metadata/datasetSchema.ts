import { z } from 'zod';

export const DATE_GRANULARITIES = ['day', 'week', 'month', 'quarter', 'year'] as const;
export const MEASURE_AGGREGATIONS = ['count', 'sum', 'avg', 'min', 'max', 'count_distinct'] as const;

const fieldName = z.string().min(1).max(200);
const identifier = z.string().regex(/^[a-z][a-z0-9_]{0,62}$/, 'must be snake_case (a lowercase letter, then letters, digits or underscores; at most 63)');

/** A dimension: a field to group on; a date or datetime field may be bucketed. Named by its field. */
export const dimensionSchema = z.union([
  fieldName,
  z.strictObject({
    field: fieldName,
    dateGranularity: z.enum(DATE_GRANULARITIES, { error: `must be one of ${DATE_GRANULARITIES.join(', ')}` }).optional(),
  }),
], { error: 'must be a field name or { "field", "dateGranularity"? }' });

/** A measure: a named aggregation (`count` needs no field). */
export const measureSchema = z.strictObject({
  name: identifier,
  aggregation: z.enum(MEASURE_AGGREGATIONS, { error: `must be one of ${MEASURE_AGGREGATIONS.join(', ')}` }),
  field: fieldName.optional(),
  label: z.string().min(1).max(200).optional(),
});

/** datasets/<name>.json: what dashboards and reports may ask of one object. */
export const datasetDefinitionSchema = z.strictObject({
  name: z.string({ error: (i) => (i.input === undefined ? 'is required: the snake_case dataset name' : 'must be a string') }),
  label: z.string().min(1).max(200).optional(),
  description: z.string().max(2000).optional(),
  object: fieldName,
  /** The base filter every use of the dataset runs under (the operator language of `where`). */
  where: z.record(z.string(), z.unknown(), { error: 'must be a condition object (the `where` of POST /data/:object/query)' }).optional(),
  dimensions: z.array(dimensionSchema).max(20, 'a dataset has at most 20 dimensions').default([]),
  measures: z.array(measureSchema).max(20, 'a dataset has at most 20 measures').default([]),
  /** Group counts may be served from memory this long after they were computed, whatever is written meanwhile. */
  freshnessMs: z.number().int().min(0).max(3_600_000, 'must be at most 3600000 (one hour)').optional(),
  /**
   * The database keeps the dataset's counts per combination of its dimensions in a table of their
   * own, current with every write (triggers): group counts and totals it can answer read a few rows.
   */
  materialized: z.boolean().optional(),
  /** The most rows a use answers (and a use's default); at most the object's maxPageSize, checked at load. */
  limit: z.number().int('must be an integer').min(1, 'must be at least 1').optional(),
});

/** How a widget or a report uses a dataset: which dimensions and measures, extra filters, order and limit. */
export const datasetUseSchema = z.strictObject({
  dataset: identifier,
  /** Dimension names (their fields); default: all of the dataset's. */
  dimensions: z.array(fieldName).max(20).optional(),
  /** Measure names; default: all of the dataset's. */
  measures: z.array(identifier).max(20).optional(),
  /** Extra filters, ANDed with the dataset's own `where`. */
  where: z.record(z.string(), z.unknown(), { error: 'must be a condition object' }).optional(),
  orderBy: z.union([z.string().max(500), z.array(z.unknown()).max(20)]).optional(),
  limit: z.number().int().min(1).max(10_000).optional(),
});

export type ParsedDataset = z.output<typeof datasetDefinitionSchema>;
export type DatasetUse = z.output<typeof datasetUseSchema>;
