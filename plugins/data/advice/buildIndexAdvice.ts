import type { Knex } from 'knex';
import type { IndexAdvice } from '../../../capabilities/dataIndexAdvice.ts';
import type { ResolvedObject } from '../../../metadata/types.ts';
import { objectIndexes } from '../sql/desiredSchema.ts';
import { dialectOf, quoteIdent } from '../sql/dialect.ts';
import { introspectSchema } from '../sql/introspectSchema.ts';
import { adviseColumns, indexServes, plainIndexSorts, type IndexShape } from './indexShape.ts';
import type { SlowShape } from './slowQueryRecorder.ts';

/**
 * The indexes that would serve `slow` shapes on this database: one per distinct column list,
 * left out when an index the object declares or the database holds already serves it.
 */
export async function buildIndexAdvice(slow: readonly SlowShape[], knex: Knex, objectOf: (name: string) => ResolvedObject | undefined): Promise<IndexAdvice[]> {
  const dialect = dialectOf(knex);
  const tables = [...new Set(slow.map((s) => s.shape.object))].filter((name) => objectOf(name) !== undefined);
  const existing = await introspectSchema(knex, dialect, tables);
  const byColumns = new Map<string, IndexAdvice>();
  for (const { shape, count, totalMs, maxMs, lastAt } of slow) {
    const object = objectOf(shape.object);
    if (!object) continue;
    const columns = adviseColumns(shape);
    const name = adviceIndexName(shape.object, columns, shape);
    const held = [...(existing.get(shape.object)?.indexes.values() ?? [])];
    if (held.some((index) => index.name === name)) continue;
    const indexes = plainIndexSorts(shape) ? [...objectIndexes(object).map((i) => i.columns), ...held.map((i) => i.columns)] : [];
    if (indexes.some((index) => indexServes(index, columns, shape.equality.length))) continue;
    const key = `${shape.object}\u0000${columns.join('\u0000')}`;
    let advice = byColumns.get(key);
    if (!advice) {
      const sql = `create index${dialect === 'postgres' ? ' concurrently' : ''} ${quoteIdent(name)} on ${quoteIdent(shape.object)} (${indexKeys(shape, columns, dialect).join(', ')})`;
      byColumns.set(key, (advice = { object: shape.object, columns, sql, shapes: [], runs: 0, totalMs: 0, maxMs: 0, lastAt: new Date(0).toISOString() }));
    }
    advice.shapes.push({ equality: shape.equality, range: shape.range, sort: shape.sort.map((s) => `${s.direction === 'desc' ? '-' : ''}${s.column}`) });
    advice.runs += count;
    advice.totalMs = Math.round((advice.totalMs + totalMs) * 10) / 10;
    advice.maxMs = Math.round(Math.max(advice.maxMs, maxMs) * 10) / 10;
    if (lastAt > Date.parse(advice.lastAt)) advice.lastAt = new Date(lastAt).toISOString();
  }
  return [...byColumns.values()].sort((a, b) => b.totalMs - a.totalMs);
}

/**
 * The index keys in the order and direction the engine's page statement sorts by
 * (compileQuery.ts: `<col> asc nulls first` / `<col> desc nulls last`, then `id asc`), so the
 * index is read forwards and the page stops after its rows. SQLite sorts NULL first in an
 * ascending index, as the statement does; PostgreSQL names it.
 */
function indexKeys(shape: IndexShape, columns: readonly string[], dialect: 'sqlite' | 'postgres'): string[] {
  const keys = columns.map((column) => {
    const direction = shape.sort.find((s) => s.column === column)?.direction;
    if (direction === undefined) return quoteIdent(column);
    if (dialect === 'sqlite') return direction === 'desc' ? `${quoteIdent(column)} desc` : quoteIdent(column);
    return direction === 'desc' ? `${quoteIdent(column)} desc nulls last` : `${quoteIdent(column)} asc nulls first`;
  });
  if (shape.sort.length > 0) keys.push(quoteIdent('id'));
  return keys;
}

/** `osr_auto_<object>_<hash of its keys>`, short enough for PostgreSQL's 63-byte identifiers. */
export function adviceIndexName(object: string, columns: readonly string[], shape?: IndexShape): string {
  let hash = 0;
  const directions = shape ? columns.map((c) => (shape.sort.find((s) => s.column === c)?.direction === 'desc' ? '-' : '')) : [];
  for (const ch of `${object}:${columns.map((c, i) => `${directions[i] ?? ''}${c}`).join(',')}`) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  return `osr_auto_${object.slice(0, 40)}_${hash.toString(16).padStart(8, '0')}`;
}
