/** datasets/<name>.json as loaded: its base query type-checked against its object. */
export interface ResolvedDataset {
  name: string;
  label: string;
  description?: string;
  object: string;
  where?: Record<string, unknown>;
  dimensions: Array<{ field: string; dateGranularity?: 'day' | 'week' | 'month' | 'quarter' | 'year' }>;
  measures: Array<{ name: string; aggregation: string; field?: string; label: string }>;
  freshnessMs?: number;
  /** Its counts kept by the database per combination of its dimensions (docs/datasets.md, Materialized). */
  materialized?: boolean;
  /** The most rows a use answers; within the object's maxPageSize (checked at load). */
  limit?: number;
  source: string;
  app: string;
}
