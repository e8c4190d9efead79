import type { WidgetType } from './dashboardSchema.ts';

/** A widget as loaded: its dataset use (when it has one) compiled and checked against the object's fields. */
export interface ResolvedWidget {
  id: string;
  type: WidgetType;
  title: string;
  chart?: 'bar' | 'line' | 'pie';
  /** A stored report's id, resolved when the dashboard runs (the caller must see the report). */
  report?: string;
  /** The dataset it shows, and how. */
  dataset?: string;
  dimensions?: string[];
  measures?: string[];
  where?: Record<string, unknown>;
  orderBy?: unknown;
  limit?: number;
}

/** dashboards/<name>.json as loaded. */
export interface ResolvedDashboard {
  name: string;
  label: string;
  description?: string;
  widgets: ResolvedWidget[];
  source: string;
  app: string;
}
