/**
 * The declaration language's types: what an app author writes (ObjectDefinition) and what the
 * loader hands the engine (ResolvedObject: defaults filled, expressions compiled).
 * The zod schemas in objectSchema.ts must infer types assignable to these.
 */

import type { ResolvedAction } from './actionTypes.ts';
import type { ResolvedForm } from './formTypes.ts';
import type { ResolvedFlow } from './flowTypes.ts';
import type { ResolvedDashboard } from './dashboardTypes.ts';
import type { ResolvedDataset } from './datasetTypes.ts';
import type { ResolvedAgent } from './agentTypes.ts';

export const FIELD_TYPES = [
  'text', 'textarea', 'email', 'url', 'phone',
  'integer', 'number', 'currency', 'percent',
  'boolean', 'date', 'datetime',
  'select', 'multiselect', 'lookup',
  'json', 'autonumber', 'formula',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export const API_METHODS = [
  'get', 'list', 'create', 'update', 'delete', 'upsert', 'bulk', 'aggregate',
  'history', 'search', 'restore', 'purge', 'import', 'export',
] as const;
export type ApiMethod = (typeof API_METHODS)[number];

export const SHARING_MODELS = ['private', 'public_read', 'public_read_write'] as const;
export type SharingModel = (typeof SHARING_MODELS)[number];

/** Result type of a formula field. */
export type FormulaType = 'text' | 'number' | 'integer' | 'boolean' | 'date' | 'datetime';

export interface SelectOption {
  value: string;
  label?: string;
}

export interface FieldDefinition {
  type: FieldType;
  label?: string;
  help?: string;
  required?: boolean;
  unique?: boolean;
  default?: unknown;
  indexed?: boolean;
  searchable?: boolean;
  readonly?: boolean;
  /** text, textarea, email, url, phone: maximum length in characters (default by type: metadata/fieldLimits.ts). */
  maxLength?: number;
  /** json: maximum size of the value's JSON text in UTF-8 bytes (default 1000000). */
  maxBytes?: number;
  /** integer, number, currency, percent: bounds. */
  min?: number;
  max?: number;
  /** number, currency, percent: digits after the decimal point. */
  scale?: number;
  /** select, multiselect: allowed values (strings or {value,label}). */
  options?: Array<string | SelectOption>;
  /** lookup: the referenced object's name. */
  reference?: string;
  /** formula: CEL expression over the record's fields; read-only, computed. */
  expression?: string;
  /** formula: the type the expression yields. */
  returns?: FormulaType;
  /** autonumber: display format, `{0000}` is the zero-padded sequence, e.g. `LEAD-{0000}`. */
  format?: string;
  /** CEL over the record: the field is read and written only for records where it is true. */
  visibleWhen?: string;
  /** CEL over the stored record: while true, an update may not change the field. */
  readonlyWhen?: string;
  /** CEL over the record as written: while true, the field must have a value. */
  requiredWhen?: string;
}

export interface ValidationRule {
  name: string;
  /** CEL over the record (`record.field` or bare field names? bare names are refused: use `record.x`). Must be true for the record to be valid. */
  expression: string;
  message: string;
  /** Which writes it checks; default both. */
  on?: Array<'create' | 'update'>;
  /** Field the error is reported on (default: the rule name). */
  field?: string;
}

/** Weight classes of full-text search, lowest to highest (both index engines have four). */
export const SEARCH_WEIGHTS = [1, 2, 3, 4] as const;
export type SearchWeight = (typeof SEARCH_WEIGHTS)[number];

/** Scoring rules of full-text search: a match in a heavier field ranks higher. */
export interface ObjectSearch {
  /** Searchable field -> weight (1 to 4); a searchable field not listed weighs 1. */
  weights?: Record<string, SearchWeight>;
}

export interface ObjectIndex {
  fields: string[];
  unique?: boolean;
}

/** A row policy: the rows of an object a user may read (or edit) beyond its sharing model, as CEL over `record` and `user`. */
export interface RowPolicy {
  name: string;
  condition: string;
  /** edit also grants read. */
  access: 'read' | 'edit';
}

export interface ObjectDefinition {
  /** snake_case; used as `:object` in paths and as the table name. */
  name: string;
  label?: string;
  pluralLabel?: string;
  description?: string;
  fields: Record<string, FieldDefinition>;
  apiEnabled?: boolean;
  apiMethods?: ApiMethod[];
  maxPageSize?: number;
  sharingModel?: SharingModel;
  /** false: no owner_id column (default true for custom objects). */
  owner?: boolean;
  enable?: {
    activities?: boolean;
    feeds?: boolean;
    files?: boolean;
    trackHistory?: boolean;
    /** A delete moves the record to the trash (default: whether apiMethods lists `restore`). */
    trash?: boolean;
  };
  /** Declared by third-party system objects that accept user writes. */
  userActions?: { create?: boolean; update?: boolean; delete?: boolean };
  validationRules?: ValidationRule[];
  /** Row policies, compiled into the query filter of every read (see docs/access.md). */
  policies?: RowPolicy[];
  indexes?: ObjectIndex[];
  /** Field used as the record's display name (default `name` if declared, else the first text field). */
  nameField?: string;
  search?: ObjectSearch;
}

/** A compiled CEL expression, type-checked at load time. */
export interface CompiledExpression {
  source: string;
  /** CEL type name of the result, e.g. `string`, `int`, `double`, `bool`, `google.protobuf.Timestamp`. */
  type: string;
  /**
   * The stored fields (system fields included) the expression reads, through the formulas it reads
   * too: a formula's value tells about each of them, so it is readable only where they all are.
   */
  reads: readonly string[];
  /** Evaluate against a record (plain JS values as stored/returned by the engine) and a context. */
  evaluate(record: Record<string, unknown>, context?: ExpressionContext): unknown;
}

export interface ExpressionContext {
  /** Current time; defaults to `new Date()`. */
  now?: Date;
  user?: { id: string; positions: string[]; organizationId?: string | null } | null;
}

export interface ResolvedField extends FieldDefinition {
  name: string;
  label: string;
  required: boolean;
  unique: boolean;
  indexed: boolean;
  searchable: boolean;
  readonly: boolean;
  /** Normalized select/multiselect values. */
  optionValues?: string[];
  /** formula: compiled expression. */
  compiled?: CompiledExpression;
  /** visibleWhen, readonlyWhen, requiredWhen compiled (type-checked at load). */
  conditions?: FieldConditions;
}

export type FieldConditionKey = 'visibleWhen' | 'readonlyWhen' | 'requiredWhen';
export type FieldConditions = Partial<Record<FieldConditionKey, CompiledExpression>>;

export interface ResolvedValidationRule extends ValidationRule {
  compiled: CompiledExpression;
}

/** System columns present on every object (owner_id only when `owner` is true). */
export const SYSTEM_FIELDS = ['id', 'version', 'created_at', 'updated_at', 'created_by', 'updated_by', 'owner_id'] as const;
export type SystemField = (typeof SYSTEM_FIELDS)[number];

export interface ResolvedObject {
  name: string;
  label: string;
  pluralLabel: string;
  description?: string;
  /** Declared fields, in declaration order. */
  fields: Record<string, ResolvedField>;
  apiEnabled: boolean;
  /** null: every operation allowed. */
  apiMethods: ApiMethod[] | null;
  maxPageSize: number;
  sharingModel: SharingModel;
  owner: boolean;
  enable: { activities: boolean; feeds: boolean; files: boolean; trackHistory: boolean; trash: boolean };
  userActions?: ObjectDefinition['userActions'];
  validationRules: ResolvedValidationRule[];
  /** Row policies, type-checked at load. */
  policies: RowPolicy[];
  indexes: ObjectIndex[];
  nameField: string | null;
  /** Full-text weights of every searchable field (default 1); absent when no field is searchable. */
  search?: { weights: Record<string, SearchWeight> };
  /** Engine-owned system object: read-only through /data. */
  system: boolean;
  /** Where it was declared (file path or `code`), for error messages. */
  source: string;
  /** App it belongs to. */
  app: string;
}

export interface AppManifest {
  name: string;
  label?: string;
  version: string;
  /** Protocol range the app was written for, e.g. `^16.0.0`. */
  protocol: string;
}

export interface LoadedApp {
  manifest: AppManifest;
  dir: string;
  objects: ResolvedObject[];
  /** books/<name>.json: navigation trees. */
  books: ResolvedBook[];
  /** overrides/objects/<name>.json: what this package changes on objects of other apps. */
  overrides: PackageOverride[];
  /** actions/<name>.json: named operations served as POST /actions/<name>. */
  actions: ResolvedAction[];
  /** forms/<slug>.json: public forms served at /f/<slug> by the forms plugin. */
  forms?: ResolvedForm[];
  /** views/<name>.json: list views (and record form layouts) of objects. */
  views?: ResolvedView[];
  /** flows/<name>.json: step sequences run by the flows plugin. */
  flows: ResolvedFlow[];
  /** datasets/<name>.json: named analytic queries (object, base filter, dimensions, measures) dashboards and reports use. */
  datasets: ResolvedDataset[];
  /** dashboards/<name>.json: widgets over datasets and stored reports. */
  dashboards: ResolvedDashboard[];
  /** agents/<name>.json: AI assistants run by the ai plugin (docs/ai.md). */
  agents: ResolvedAgent[];
}

/** Who sees a book node: callers holding the permission set (admins see every node). */
export interface BookAudience {
  permissionSet: string;
}

/** A node of a book: a section groups nodes, a page points to an object (and optionally a view of it). */
export interface BookNode {
  /** snake_case, unique among its siblings: a stable id for the node. */
  name: string;
  kind: 'section' | 'page';
  label?: string;
  description?: string;
  /** page: the object it shows. */
  object?: string;
  /** page: a view of that object (declared by an override or an overlay). */
  view?: string;
  audience?: BookAudience;
  /** section: its nodes. */
  children?: BookNode[];
}

export interface BookDefinition {
  name: string;
  label?: string;
  description?: string;
  nodes: BookNode[];
}

export interface ResolvedBook extends BookDefinition {
  label: string;
  /** File it was declared in. */
  source: string;
  app: string;
}

/** Labels of an object that a package or an overlay may change. */
export interface LabelsPatch {
  label?: string;
  pluralLabel?: string;
  description?: string;
}

/** What may change on a declared field: texts only, never its type or its stored values. */
export interface FieldPatch {
  label?: string;
  help?: string;
  /** Select and multiselect: option value -> label. */
  options?: Record<string, string>;
}

/** A list view of an object: which columns, in which order, filtered how. */
export interface ViewDefinition {
  label: string;
  description?: string;
  columns: string[];
  orderBy?: Array<{ field: string; order: 'asc' | 'desc' }>;
  /** A filter condition of the structured query (its `where`) over the object's fields. */
  where?: Record<string, unknown>;
  pageSize?: number;
  /** The record form's layout: sections of fields, in order (default: every field, one section). */
  form?: ViewForm;
  /** The object's default view, the one its navigation opens (none marked: the first declared). */
  default?: boolean;
}

export interface ViewForm {
  sections: Array<{ label: string; fields: string[] }>;
}

/** views/<name>.json: a list view of one object, the same thing as the object's `views` section entry `<object>.<name>`. */
export interface ResolvedView extends ViewDefinition {
  /** `<object>.<file name>`, as the sectioned metadata API names it. */
  name: string;
  object: string;
  source: string;
  app: string;
}

/** Changes to one object, by section: the shape of a package override file and of an object's overlays. */
export interface ObjectPatch {
  labels?: LabelsPatch;
  fields?: Record<string, FieldPatch>;
  views?: Record<string, ViewDefinition>;
}

export interface PackageOverride {
  /** The object changed (declared by another app). */
  object: string;
  /** The app shipping the override. */
  app: string;
  source: string;
  patch: ObjectPatch;
}
