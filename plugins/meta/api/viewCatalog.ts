import type { AccessGrants } from '../../../capabilities/accessGrants.ts';
import type { Principal } from '../../../capabilities/authSession.ts';
import { codedError } from '../../../kernel/errors.ts';
import { SYSTEM_FIELDS, type ResolvedObject, type ViewDefinition } from '../../../metadata/types.ts';
import { describeField } from './describeItems.ts';
import { fieldReader, readableView, seesEveryView } from './readableView.ts';
import type { ViewDetail, ViewDoc } from './viewDocs.ts';

export type { ViewDetail, ViewDoc } from './viewDocs.ts';

/** Field types a default view leaves out of its columns (long or structured values). */
const NOT_A_COLUMN = new Set(['json', 'textarea', 'richtext', 'file']);
const DEFAULT_COLUMNS = 8;
const DEFAULT_PAGE_SIZE = 50;

/** The view of an object that declares none: its first fields, newest first. */
export function defaultView(object: ResolvedObject): ViewDefinition {
  const columns = Object.values(object.fields).filter((f) => !NOT_A_COLUMN.has(f.type)).slice(0, DEFAULT_COLUMNS).map((f) => f.name);
  return {
    label: `All ${object.pluralLabel.toLowerCase()}`,
    columns: columns.length > 0 ? columns : ['id'],
    orderBy: [{ field: 'created_at', order: 'desc' }],
    pageSize: Math.min(DEFAULT_PAGE_SIZE, object.maxPageSize),
    default: true,
  };
}

/**
 * A view as one caller may use it, or null when it may not: the object must be readable; a
 * `where` naming a field the caller may not read makes the view unusable (its query would be
 * refused), so it is not served; columns, sort and form fields it may not read are left out
 * (readableView.ts).
 */
export function viewFor(object: ResolvedObject, key: string, declared: ViewDefinition, readable: ReadonlySet<string>): ViewDoc | null {
  const definition = readableView(declared, fieldReader(readable));
  if (!definition) return null;
  return {
    name: `${object.name}.${key}`,
    object: object.name,
    label: definition.label,
    ...(definition.description ? { description: definition.description } : {}),
    columns: definition.columns,
    ...(definition.where ? { where: definition.where } : {}),
    orderBy: definition.orderBy ?? [],
    pageSize: Math.min(definition.pageSize ?? DEFAULT_PAGE_SIZE, object.maxPageSize),
    ...(definition.form ? { form: definition.form } : {}),
    default: definition.default === true,
    objectLabel: object.label,
    pluralLabel: object.pluralLabel,
    system: object.system,
    package: object.app,
  };
}

/**
 * The views a caller may use: for every object served by the data API that it may read, its
 * effective views (views/*.json, package overrides, overlays), or a default view when it has none.
 */
export function createViewCatalog(grants: AccessGrants | null) {
  async function access(object: ResolvedObject, environmentId: string, principal: Principal | null): Promise<Set<string> | null> {
    if (!object.apiEnabled || (object.apiMethods && !object.apiMethods.includes('list'))) return null;
    const names = Object.keys(object.fields);
    if (!grants || !principal) return new Set(names);
    if (!(await grants.objectAccess(principal, object.name)).read) return null;
    return new Set(await grants.readableFields({ environmentId, principal }, object.name, names));
  }

  return {
    /** The caller's views of one object; `effective` is the object's `views` section as in effect. */
    async viewsOf(object: ResolvedObject, effective: Record<string, unknown>, environmentId: string, principal: Principal | null): Promise<ViewDoc[]> {
      const readable = await access(object, environmentId, principal);
      if (!readable) return [];
      const entries = Object.entries(effective) as Array<[string, ViewDefinition]>;
      const views = (entries.length > 0
        ? entries.map(([key, definition]) => viewFor(object, key, definition, readable))
        : [viewFor(object, 'default', defaultView(object), readable)]).filter((v): v is ViewDoc => v !== null);
      const chosen = views.find((v) => v.default) ?? views[0];
      return views.map((v) => ({ ...v, default: v === chosen }));
    },

    /**
     * How the caller may see view definitions of an object wherever metadata shows them (object
     * items, their layers, the `views` section, overlay history): null for authors (admins and
     * holders of metadata:write), who see them as declared; else each definition as readableView
     * makes it, and none at all of an object the caller may not list.
     */
    async viewFilter(object: ResolvedObject, environmentId: string, principal: Principal | null): Promise<((definition: ViewDefinition) => ViewDefinition | null) | null> {
      if (seesEveryView(principal)) return null;
      const readable = await access(object, environmentId, principal);
      if (!readable) return () => null;
      const can = fieldReader(readable);
      return (definition) => readableView(definition, can);
    },

    /** One view with the fields the caller may read, for a screen that renders it. */
    async detail(object: ResolvedObject, view: ViewDoc, environmentId: string, principal: Principal | null): Promise<ViewDetail> {
      const readable = (await access(object, environmentId, principal)) ?? new Set<string>();
      const names = Object.keys(object.fields).filter((name) => readable.has(name));
      const editable = grants && principal ? new Set(await grants.editableFields({ environmentId, principal }, object.name, names)) : null;
      return {
        ...view,
        fields: Object.fromEntries(Object.values(object.fields).filter((f) => readable.has(f.name)).map((f) => [f.name, describeField(f)])),
        systemFields: SYSTEM_FIELDS.filter((f) => f !== 'owner_id' || object.owner),
        enable: object.enable,
        maxPageSize: object.maxPageSize,
        searchable: object.search !== undefined,
        nameField: object.nameField !== null && readable.has(object.nameField) ? object.nameField : null,
        sharingModel: object.sharingModel,
        readOnlyFields: editable ? names.filter((name) => !editable.has(name)) : [],
      };
    },
  };
}

export type ViewCatalog = ReturnType<typeof createViewCatalog>;

/** `account.key_accounts` -> object and key; null when the name has no dot. */
export function splitViewName(name: string): { object: string; key: string } | null {
  const dot = name.indexOf('.');
  if (dot <= 0 || dot === name.length - 1) return null;
  return { object: name.slice(0, dot), key: name.slice(dot + 1) };
}

export const viewNotFound = (name: string) => codedError('NOT_FOUND', { what: `View '${name.slice(0, 200)}'`, type: 'view', name: name.slice(0, 200) });
