/**
 * What `/meta/view` answers (docs/metadata-api.md, Views): the one definition of these shapes, for
 * the server that builds them (viewCatalog.ts, describeItems.ts) and the console that reads them
 * (plugins/console/app). It imports nothing, so the console's browser program checks it as well.
 */

/** A field as the metadata API describes it: its declaration, options as `{ value, label }`, conditions as their CEL source. */
export interface FieldDoc {
  type: string;
  label: string;
  help?: string;
  required?: boolean;
  readonly?: boolean;
  unique?: boolean;
  searchable?: boolean;
  default?: unknown;
  /** lookup: the referenced object. */
  reference?: string;
  options?: Array<{ value: string; label: string }>;
  maxLength?: number;
  min?: number;
  max?: number;
  visibleWhen?: string;
  readonlyWhen?: string;
  requiredWhen?: string;
  /** Every other key of the declaration (expression, format, scale, ...). */
  [key: string]: unknown;
}

/** A record form's layout: sections of fields, in order. */
export interface FormLayout {
  sections: Array<{ label: string; fields: string[] }>;
}

/** A view as `/meta/view` serves it: the definition as this caller may use it, and its object's names. */
export interface ViewDoc {
  name: string;
  object: string;
  label: string;
  description?: string;
  columns: string[];
  where?: Record<string, unknown>;
  orderBy: Array<{ field: string; order: 'asc' | 'desc' }>;
  pageSize: number;
  form?: FormLayout;
  /**
   * The object's default view for this caller (exactly one of its views): the first it may use
   * that is marked `default`, else the first it may use, in declaration order; the view made for
   * an object that declares none.
   */
  default: boolean;
  objectLabel: string;
  pluralLabel: string;
  system: boolean;
  /** The app that declares the object. */
  package: string;
}

/** `/meta/view/:name` adds what a screen needs to render the object: the fields this caller may read. */
export interface ViewDetail extends ViewDoc {
  fields: Record<string, FieldDoc>;
  systemFields: string[];
  enable: { activities: boolean; feeds: boolean; files: boolean; trackHistory: boolean; trash: boolean };
  maxPageSize: number;
  searchable: boolean;
  /** The field that names a record (null: none). */
  nameField: string | null;
  /** Who reads records by default (private and public_read objects are shared record by record). */
  sharingModel: 'private' | 'public_read' | 'public_read_write';
  /** Fields the caller may read but not write (field-level security: a set grants it `read` only). */
  readOnlyFields: string[];
}
