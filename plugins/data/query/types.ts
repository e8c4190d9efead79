import type { ResolvedField, ResolvedObject } from '../../../metadata/types.ts';
import type { ValueType } from '../sql/objectColumns.ts';

/** The structured query as a client sends it; parseQuery checks every part against metadata. */
export type QueryInput = Record<string, unknown>;

/** Looks objects up by name (a Map satisfies it). */
export interface ObjectRegistry {
  get(name: string): ResolvedObject | undefined;
}

/** A column of the query's object or of a joined alias, checked against metadata. */
export interface FieldRef {
  /** Join alias, or null for the query's own object (inside a scope filter: the object being scoped). */
  alias: string | null;
  object: string;
  /** API field name. */
  name: string;
  column: string;
  type: ValueType;
  /** autonumber: integer column used for sorting. */
  seqColumn: string | null;
}

export type Operand =
  | { kind: 'value'; value: unknown }
  | { kind: 'field'; ref: FieldRef }
  /** Evaluated once when the query is parsed, e.g. `now()`; the source identifies the query shape. */
  | { kind: 'cel'; source: string; value: unknown };

/** What a condition tests: a column, or (in having) an aggregation's result. */
export type Target =
  | { kind: 'field'; ref: FieldRef }
  | { kind: 'aggregate'; alias: string; type: ValueType };

export type CompareOp = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte';
export type TextOp = 'contains' | 'startsWith' | 'endsWith';

export type Condition =
  | { kind: 'and'; items: Condition[] }
  | { kind: 'or'; items: Condition[] }
  | { kind: 'not'; item: Condition }
  | { kind: 'compare'; target: Target; op: CompareOp; operand: Operand }
  | { kind: 'in'; target: Target; values: unknown[]; negate: boolean }
  | { kind: 'between'; target: Target; low: Operand; high: Operand }
  | { kind: 'text'; target: Target; op: TextOp; value: string; negate: boolean }
  /** multiselect: the array holds the value. */
  | { kind: 'has'; target: Target; value: string; negate: boolean }
  | { kind: 'null'; target: Target; isNull: boolean };

export type JoinType = 'inner' | 'left' | 'right' | 'full';

export interface JoinNode {
  type: JoinType;
  object: ResolvedObject;
  alias: string;
  /** `<local> = <alias>.<foreign>`. */
  local: FieldRef;
  foreign: FieldRef;
}

export type Granularity = 'day' | 'week' | 'month' | 'quarter' | 'year';

export interface GroupKey {
  /** Key of the value in result rows: the field name, `alias.field` for joined fields. */
  key: string;
  ref: FieldRef;
  granularity: Granularity | null;
}

export type AggregateFunction = 'count' | 'sum' | 'avg' | 'min' | 'max' | 'count_distinct' | 'array_agg' | 'string_agg';

export interface AggregationNode {
  fn: AggregateFunction;
  ref: FieldRef | null;
  alias: string;
  /** Type of the result, for having operands and decoding. */
  type: ValueType;
}

export interface SortKey {
  /** A column, or (aggregate queries) a group key or aggregation alias of the output. */
  target: { kind: 'field'; ref: FieldRef } | { kind: 'output'; key: string; type: ValueType };
  direction: 'asc' | 'desc';
}

export interface ExpandNode {
  /** Lookup field on the parent object. */
  field: string;
  column: string;
  object: ResolvedObject;
  children: ExpandNode[];
}

export interface SelectItem {
  ref: FieldRef;
  /** Key in the result record: field name, or `alias.field` for joined fields. */
  key: string;
}

/** The normalized query: everything in it has been checked against metadata. */
export interface QueryAst {
  object: ResolvedObject;
  /** Columns to read; for plain queries id is always among them. */
  select: SelectItem[];
  /** Formula fields to compute after reading. */
  formulas: ResolvedField[];
  /** Keys returned in each record, in order; null: every column read plus formulas. */
  output: string[] | null;
  where: Condition | null;
  orderBy: SortKey[];
  limit: number;
  offset: number;
  cursor: string | null;
  expand: ExpandNode[];
  joins: JoinNode[];
  groupBy: GroupKey[];
  aggregations: AggregationNode[];
  having: Condition | null;
  distinct: boolean;
  /** groupBy or aggregations present: rows are groups, not records. */
  aggregate: boolean;
  /** Keyset pagination is possible: one row per record, so (sort keys, id) is unique. */
  keyset: boolean;
}

/** Row-level security hook: a validated condition per object, ANDed wherever that object is read. */
export type ScopeFilter = (object: ResolvedObject) => Condition | null;

export interface ListResult {
  items: Array<Record<string, unknown>>;
  total?: number;
  /** `total` is an estimate (count=estimated): the planner's, or at least this many on SQLite. */
  totalEstimated?: true;
  /** `total` is the cap (count=capped, the v1 default): at least this many match. */
  totalCapped?: true;
  nextCursor: string | null;
}
