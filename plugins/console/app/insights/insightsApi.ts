import type { Column } from './chartData.ts';

export interface Schedule { cron: string; timezone: string; recipients: string[]; format: string }

/** A stored report as `/reports` answers it; `schedule` and `lastDelivery` to its owner and admins only. */
export interface Report {
  id: string;
  name: string;
  description: string | null;
  query: Record<string, unknown>;
  shared: boolean;
  owner: string;
  schedule?: Schedule | null;
  lastDelivery?: { at: string | null; error: { code: string; message: string } | null };
  updatedAt: string;
  version: number;
}

export interface RunAnswer { items: Array<Record<string, unknown>>; columns: Column[]; truncated: boolean }

export interface Dashboard { name: string; label: string; description?: string; widgets: Array<{ id: string }>; package?: string }

export interface WidgetAnswer extends Partial<RunAnswer> {
  id: string;
  type: 'metric' | 'chart' | 'table';
  title: string;
  chart?: 'bar' | 'line' | 'pie';
  error?: { code: string; message: string };
}

/** What a report reads: its object, or the dataset it uses. */
export function sourceOf(query: Record<string, unknown>): string {
  if (typeof query.dataset === 'string') return `dataset ${query.dataset}`;
  return typeof query.object === 'string' ? query.object : '';
}
