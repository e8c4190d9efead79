import type { ResolvedObject } from '../metadata/types.ts';
import type { DataContext } from './dataEngine.ts';
import { defineCapability } from './defineCapability.ts';

/**
 * A row scope a plugin adds to every read of the engine: a condition in the `where` language for an
 * object and a caller, or null when it does not apply. It is ANDed into queries, counts, joins and
 * expands, and a write to a row outside it answers 404. Engine work (ctx.system) is not scoped.
 */
export type RowScope = (object: ResolvedObject, ctx: DataContext) => Record<string, unknown> | null;

export interface DataScopes {
  /** During register only. */
  add(scope: RowScope): void;
}

export const dataScopes = defineCapability<DataScopes>()({
  id: 'data.scopes',
  cardinality: 'single',
  description: 'Add row scopes (tenant or organization boundaries) that the data engine applies on every read and write.',
});
