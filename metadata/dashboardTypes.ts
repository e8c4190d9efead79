import type { WidgetType } from './dashboardSchema.ts';

/** A widget as loaded: its query (when it has one) checked against its object's fields. */
export interface ResolvedWidget {
  id: string;
  type: WidgetType;
  title: string;
  chart?: 'bar' | 'line' | 'pie';
  /** A stored report's id, resolved when the dashboard runs (the caller must see the report). */
  report?: string;
  /** The structured query: `object` and the body of POST /data/:object/query. */
  query?: Record<string, unknown> & { object: string };
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
