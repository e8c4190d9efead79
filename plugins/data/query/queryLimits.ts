/**
 * The size limits of one query, checked while it is parsed (before any SQL is built). A query over
 * a limit is 400 VALIDATION_ERROR; its entry in `details.errors` names the limit (`limit`, `max`).
 * They keep the work of parsing and compiling a query small and its SQL under the drivers' own
 * bounds (SQLite: 1000 levels of expression, 2000 result columns, 32766 bound values; PostgreSQL:
 * 1664 result columns, 65535 bound values), which would otherwise answer 500. See docs/data-api.md.
 */
export const QUERY_LIMITS = {
  /** Levels of `$and` / `$or` / `$not` in one condition (where, having). */
  conditionDepth: 64,
  /** Entries of one `$and` / `$or` array. */
  conditionBranches: 200,
  /** Nodes of one condition: every logical operator and every field test. */
  conditionNodes: 500,
  /** Values one condition binds, all `$in` / `$nin` lists included. */
  conditionValues: 5000,
  /** Values of one `$in` / `$nin` list. */
  inValues: 1000,
  /** Characters of a text operand (`$eq`, `$in`, ... values). */
  operandLength: 10_000,
  /** Characters of a `$contains` / `$notContains` / `$startsWith` / `$endsWith` operand. */
  patternLength: 1000,
  /** Entries of `aggregations`. */
  aggregations: 50,
  /** Entries of `groupBy`. */
  groupBy: 20,
  /** Sort keys of `orderBy`. */
  orderBy: 20,
  /** Names in `fields` / `select`. */
  fields: 500,
  /** Paths in `expand`. */
  expandPaths: 50,
  /** Segments of one expand path. */
  expandDepth: 4,
} as const;

export type QueryLimit = keyof typeof QUERY_LIMITS;

/** Levels of arrays and objects in a json field's value (create and update). */
export const MAX_JSON_DEPTH = 64;

export { jsonDepthOver } from '../../../kernel/jsonLimits.ts';
