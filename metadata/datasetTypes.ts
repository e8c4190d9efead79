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
  /** The most rows a use answers; within the object's maxPageSize (checked at load). */
  limit?: number;
  source: string;
  app: string;
}
