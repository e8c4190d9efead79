import type { SchemaAction } from './planSchema.ts';

const NOUNS: Record<SchemaAction['kind'], [string, string, string]> = {
  createTable: ['created', 'table', 'tables'],
  addColumn: ['added', 'column', 'columns'],
  dropColumn: ['dropped', 'column', 'columns'],
  changeColumnType: ['retyped', 'column', 'columns'],
  createIndex: ['created', 'index', 'indexes'],
  dropIndex: ['dropped', 'index', 'indexes'],
};

/** One line for a whole schema sync: `created 9 tables, 31 indexes; added 2 columns`. */
export function summarizeSchema(actions: readonly SchemaAction[]): string {
  const counts = new Map<SchemaAction['kind'], number>();
  for (const action of actions) counts.set(action.kind, (counts.get(action.kind) ?? 0) + 1);
  const byVerb = new Map<string, string[]>();
  for (const [kind, n] of counts) {
    const [verb, one, many] = NOUNS[kind];
    byVerb.set(verb, [...(byVerb.get(verb) ?? []), `${n} ${n === 1 ? one : many}`]);
  }
  return [...byVerb].map(([verb, parts]) => `${verb} ${parts.join(', ')}`).join('; ');
}
