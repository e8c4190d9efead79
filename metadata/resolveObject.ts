import { isCodedError, type CodedError } from '../kernel/errors.ts';
import type { ObjectDefinition, ResolvedField, ResolvedObject, ResolvedValidationRule, SelectOption } from './types.ts';
import { compileExpression, compileFormula } from './cel/compileExpression.ts';
import { humanize, pluralize } from './names.ts';
import { FIELD_CONDITION_KEYS } from './fieldConditions.ts';

const TEXT_TYPES = new Set(['text']);

export interface ResolveInput {
  definition: ObjectDefinition;
  /** File it was declared in, or `code`. */
  source: string;
  app: string;
}

/**
 * Fills the defaults of the declaration language and compiles formulas and validation rules.
 * Every expression problem is returned, not thrown; object is null when there was any.
 */
export function resolveObject({ definition: def, source, app }: ResolveInput): { object: ResolvedObject | null; errors: CodedError[] } {
  const errors: CodedError[] = [];
  const collect = <T>(run: () => T): T | undefined => {
    try {
      return run();
    } catch (error) {
      if (!isCodedError(error)) throw error;
      if (!errors.some((e) => e.message === error.message)) errors.push(error);
      return undefined;
    }
  };
  const owner = def.owner ?? true;
  const scope = { name: def.name, fields: def.fields, owner };

  const fields: Record<string, ResolvedField> = {};
  for (const [name, field] of Object.entries(def.fields)) {
    const computed = field.type === 'formula' || field.type === 'autonumber';
    const resolved: ResolvedField = {
      ...field,
      name,
      label: field.label ?? humanize(name),
      required: field.required ?? false,
      unique: field.unique ?? false,
      indexed: field.indexed ?? false,
      searchable: field.searchable ?? false,
      readonly: computed || (field.readonly ?? false),
    };
    if (field.options) resolved.optionValues = field.options.map((o: string | SelectOption) => (typeof o === 'string' ? o : o.value));
    if (field.type === 'formula') {
      const compiled = collect(() => compileFormula(scope, name, { file: source, path: `fields.${name}.expression` }));
      if (compiled) resolved.compiled = compiled;
    }
    for (const key of FIELD_CONDITION_KEYS) {
      const expression = field[key];
      if (expression === undefined) continue;
      const compiled = collect(() => compileExpression(expression, scope, 'boolean', { file: source, path: `fields.${name}.${key}` }));
      if (compiled) (resolved.conditions ??= {})[key] = compiled;
    }
    fields[name] = resolved;
  }

  const validationRules: ResolvedValidationRule[] = [];
  (def.validationRules ?? []).forEach((rule, i) => {
    const compiled = collect(() => compileExpression(rule.expression, scope, 'boolean', { file: source, path: `validationRules[${i}].expression` }));
    if (compiled) validationRules.push({ ...rule, on: rule.on ?? ['create', 'update'], compiled });
  });

  // Row policies are compiled to SQL per request (see plugins/data/access); type-checking here fails the boot on a bad one.
  (def.policies ?? []).forEach((policy, i) => {
    collect(() => compileExpression(policy.condition, scope, 'boolean', { file: source, path: `policies[${i}].condition` }));
  });

  if (errors.length > 0) return { object: null, errors };
  const label = def.label ?? humanize(def.name);
  const object: ResolvedObject = {
    name: def.name,
    label,
    pluralLabel: def.pluralLabel ?? pluralize(label),
    fields,
    apiEnabled: def.apiEnabled ?? true,
    apiMethods: def.apiMethods ?? null,
    maxPageSize: def.maxPageSize ?? 200,
    sharingModel: def.sharingModel ?? (owner ? 'private' : 'public_read_write'),
    owner,
    enable: {
      activities: def.enable?.activities ?? true,
      feeds: def.enable?.feeds ?? true,
      files: def.enable?.files ?? false,
      trackHistory: def.enable?.trackHistory ?? false,
      trash: def.enable?.trash ?? def.apiMethods?.includes('restore') ?? false,
    },
    validationRules,
    policies: def.policies ?? [],
    indexes: def.indexes ?? [],
    nameField: def.nameField ?? defaultNameField(def),
    system: false,
    source,
    app,
  };
  const searchable = Object.values(fields).filter((f) => f.searchable).map((f) => f.name);
  if (searchable.length > 0) {
    object.search = { weights: Object.fromEntries(searchable.map((name) => [name, def.search?.weights?.[name] ?? 1])) };
  }
  if (def.description !== undefined) object.description = def.description;
  if (def.userActions !== undefined) object.userActions = def.userActions;
  return { object, errors };
}

/** `name` when declared, else the first text field, else none. */
function defaultNameField(def: ObjectDefinition): string | null {
  if (def.fields['name'] && TEXT_TYPES.has(def.fields['name'].type)) return 'name';
  return Object.entries(def.fields).find(([, f]) => TEXT_TYPES.has(f.type))?.[0] ?? null;
}
