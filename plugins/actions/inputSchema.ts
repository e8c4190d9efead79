import type { ActionInputField, ResolvedAction } from '../../metadata/actionTypes.ts';

/** Longest text input when the declaration sets no maxLength. */
export const DEFAULT_MAX_LENGTH = 10_000;
/** Longest record id accepted in `recordId` or a lookup input. */
export const MAX_ID_LENGTH = 200;

type Schema = Record<string, unknown>;

function fieldSchema(field: ActionInputField): Schema {
  const described = { ...(field.label ? { title: field.label } : {}), ...(field.help ? { description: field.help } : {}) };
  switch (field.type) {
    case 'text': case 'textarea': case 'phone':
      return { type: 'string', maxLength: field.maxLength ?? DEFAULT_MAX_LENGTH, ...described };
    case 'email':
      return { type: 'string', format: 'email', maxLength: field.maxLength ?? 320, ...described };
    case 'url':
      return { type: 'string', format: 'uri', maxLength: field.maxLength ?? 2048, ...described };
    case 'integer':
      return { type: 'integer', ...(field.min !== undefined ? { minimum: field.min } : {}), ...(field.max !== undefined ? { maximum: field.max } : {}), ...described };
    case 'number': case 'currency': case 'percent':
      return { type: 'number', ...(field.min !== undefined ? { minimum: field.min } : {}), ...(field.max !== undefined ? { maximum: field.max } : {}), ...described };
    case 'boolean':
      return { type: 'boolean', ...described };
    case 'date':
      return { type: 'string', format: 'date', ...described };
    case 'datetime':
      return { type: 'string', format: 'date-time', ...described };
    case 'select':
      return { type: 'string', enum: [...(field.options ?? [])], ...described };
    case 'multiselect':
      return { type: 'array', items: { type: 'string', enum: [...(field.options ?? [])] }, uniqueItems: true, maxItems: field.options?.length ?? 0, ...described };
    case 'lookup':
      return { type: 'string', minLength: 1, maxLength: MAX_ID_LENGTH, description: `Id of a ${field.reference} record${field.help ? `: ${field.help}` : ''}`, ...(field.label ? { title: field.label } : {}) };
    case 'json':
      return { ...described };
  }
}

/**
 * The JSON Schema of an action's body, generated from its declaration: its inputs, plus `recordId`
 * for a record action; unknown keys refused. The route validates with it and documents it.
 */
export function actionBodySchema(action: ResolvedAction): Schema {
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  if (action.object) {
    properties.recordId = { type: 'string', minLength: 1, maxLength: MAX_ID_LENGTH, description: `Id of the ${action.object} record the action runs on` };
    required.push('recordId');
  }
  for (const [name, field] of Object.entries(action.input)) {
    properties[name] = fieldSchema(field);
    if (field.required) required.push(name);
  }
  return { type: 'object', additionalProperties: false, properties, ...(required.length > 0 ? { required } : {}) };
}
