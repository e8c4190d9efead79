import type { AccessGrants } from '../../capabilities/accessGrants.ts';
import type { DataContext } from '../../capabilities/dataEngine.ts';
import type { MetadataRegistry } from '../../capabilities/metadataRegistry.ts';
import type { Principal } from '../../capabilities/authSession.ts';
import { codedError } from '../../kernel/errors.ts';
import { SYSTEM_FIELDS, type ResolvedField, type ResolvedObject } from '../../metadata/types.ts';

export interface ObjectSummary {
  name: string;
  label: string;
  pluralLabel: string;
  description?: string;
}

export interface FieldView {
  name: string;
  type: string;
  label: string;
  required: boolean;
  readonly: boolean;
  help?: string;
  options?: string[];
  reference?: string;
  maxLength?: number;
  min?: number;
  max?: number;
}

export interface ObjectView extends ObjectSummary {
  fields: FieldView[];
  /** Columns every record carries (id, version, timestamps, owner). */
  systemFields: string[];
  maxPageSize: number;
  searchable: boolean;
}

function fieldView(field: ResolvedField): FieldView {
  return {
    name: field.name, type: field.type, label: field.label, required: field.required, readonly: field.readonly || field.type === 'formula' || field.type === 'autonumber',
    ...(field.help ? { help: field.help } : {}),
    ...(field.optionValues ? { options: field.optionValues } : {}),
    ...(field.reference ? { reference: field.reference } : {}),
    ...(field.maxLength !== undefined ? { maxLength: field.maxLength } : {}),
    ...(field.min !== undefined ? { min: field.min } : {}),
    ...(field.max !== undefined ? { max: field.max } : {}),
  };
}

const summaryOf = (object: ResolvedObject): ObjectSummary => ({
  name: object.name, label: object.label, pluralLabel: object.pluralLabel, ...(object.description ? { description: object.description } : {}),
});

/**
 * Objects and their schemas as one caller may see them: only API-enabled objects it may read,
 * only the fields field-level security lets it read. An object it may not read is as unknown as a
 * missing one, so its name says nothing.
 */
export function createObjectView(metadata: MetadataRegistry, grants: AccessGrants) {
  const readable = async (principal: Principal, object: ResolvedObject) => object.apiEnabled && (await grants.objectAccess(principal, object.name)).read;

  async function visible(principal: Principal, name: string): Promise<ResolvedObject> {
    const object = metadata.object(name);
    if (!object || !(await readable(principal, object))) throw codedError('NOT_FOUND', { what: `Object '${name}'`, object: name });
    return object;
  }

  return {
    visible,

    async list(principal: Principal): Promise<ObjectSummary[]> {
      const out: ObjectSummary[] = [];
      for (const object of metadata.objects()) if (await readable(principal, object)) out.push(summaryOf(object));
      return out;
    },

    async describe(ctx: DataContext & { principal: Principal }, name: string): Promise<ObjectView> {
      const object = await visible(ctx.principal, name);
      const fields = Object.values(object.fields);
      const allowed = new Set(await grants.readableFields(ctx, object.name, fields.map((f) => f.name)));
      return {
        ...summaryOf(object),
        fields: fields.filter((f) => allowed.has(f.name)).map(fieldView),
        systemFields: SYSTEM_FIELDS.filter((f) => f !== 'owner_id' || object.owner),
        maxPageSize: object.maxPageSize,
        searchable: object.search !== undefined,
      };
    },
  };
}

export type ObjectViewService = ReturnType<typeof createObjectView>;
