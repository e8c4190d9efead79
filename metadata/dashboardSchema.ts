import { z } from 'zod';

export const WIDGET_TYPES = ['metric', 'table', 'chart'] as const;
export const CHART_KINDS = ['bar', 'line', 'pie'] as const;

const text = z.string().min(1, 'must be a non-empty string');

/**
 * One widget. Strict: an unknown key is a load error naming its path (`widgets[2].colour`).
 * Its data is a declared dataset (`dataset`, with the dimensions and measures it shows and extra
 * filters) or a stored report (`report`, its id), exactly one of them. An inline `query` is
 * refused at load, naming the dataset to declare instead.
 */
export const widgetSchema = z.strictObject({
  id: z.string().regex(/^[a-z][a-z0-9_]{0,62}$/, 'must be snake_case (a lowercase letter, then letters, digits or underscores; at most 63)'),
  type: z.enum(WIDGET_TYPES, { error: `must be one of ${WIDGET_TYPES.join(', ')}` }),
  title: text.max(200, 'must be at most 200 characters').optional(),
  chart: z.enum(CHART_KINDS, { error: `must be one of ${CHART_KINDS.join(', ')}` }).optional(),
  report: z.string().min(1).max(64, 'must be a report id (at most 64 characters)').optional(),
  dataset: z.string().regex(/^[a-z][a-z0-9_]{0,62}$/, 'must be a dataset name (datasets/<name>.json)').optional(),
  dimensions: z.array(z.string().min(1).max(200)).max(20).optional(),
  measures: z.array(z.string().min(1).max(63)).max(20).optional(),
  where: z.record(z.string(), z.unknown(), { error: 'must be a condition object (extra filters over the dataset\'s)' }).optional(),
  orderBy: z.union([z.string().max(500), z.array(z.unknown()).max(20)]).optional(),
  limit: z.number().int().min(1).max(10_000).optional(),
  /** Refused at load (inline queries were replaced by datasets); kept here so the error names the fix. */
  query: z.unknown().optional(),
});

/** dashboards/<name>.json. */
export const dashboardDefinitionSchema = z.strictObject({
  name: z.string({ error: (i) => (i.input === undefined ? 'is required: the snake_case dashboard name' : 'must be a string') }),
  label: text.max(200).optional(),
  description: z.string().max(2000).optional(),
  widgets: z.array(widgetSchema).min(1, 'must list at least one widget').max(50, 'a dashboard holds at most 50 widgets'),
});

export type ParsedDashboard = z.infer<typeof dashboardDefinitionSchema>;
export type WidgetType = (typeof WIDGET_TYPES)[number];
