import type { DataRecord } from '../../capabilities/dataEngine.ts';
import type { ExportColumn } from '../../capabilities/ioExport.ts';
import type { ResolvedObject } from '../../metadata/types.ts';
import { humanize } from '../../metadata/names.ts';

const SYSTEM_LABELS: Record<string, string> = {
  id: 'ID', version: 'Version', created_at: 'Created at', updated_at: 'Updated at',
  created_by: 'Created by', updated_by: 'Updated by', owner_id: 'Owner',
};

const names = (value: unknown): string[] | null => {
  if (typeof value === 'string') return value.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' ? v : v !== null && typeof v === 'object' ? String((v as { field?: unknown }).field ?? '') : '')).filter((s) => s !== '');
  return null;
};

function label(object: ResolvedObject, key: string): string {
  return object.fields[key]?.label ?? SYSTEM_LABELS[key] ?? humanize(key.replace(/\./g, '_'));
}

/**
 * The columns of a report's answer, in order: an aggregate query's group-by fields then its
 * aggregation aliases; a plain query's fields (or select) as asked, else the keys of its first
 * row. With neither, only `id` is named: listing the object's fields could name one the caller
 * may not read (the same rule as the data export). A key in `labels` (a dataset measure's
 * declared label) takes that label; other aliases their humanized name, fields their own label.
 */
export function reportColumns(object: ResolvedObject, query: Record<string, unknown>, items: readonly DataRecord[], labels: Readonly<Record<string, string>> = {}): ExportColumn[] {
  const aliases = Array.isArray(query.aggregations) ? query.aggregations.map((a) => String((a as { alias?: unknown }).alias ?? '')).filter((a) => a !== '') : [];
  const groups = names(query.groupBy) ?? [];
  let keys: string[];
  if (groups.length > 0 || aliases.length > 0) keys = [...groups, ...aliases];
  else keys = names(query.fields ?? query.select) ?? (items[0] ? Object.keys(items[0]) : ['id']);
  return keys.map((key) => ({ key, label: Object.hasOwn(labels, key) ? labels[key]! : aliases.includes(key) ? humanize(key) : label(object, key) }));
}
