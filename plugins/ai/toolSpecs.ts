import type { ActionsRegistry } from '../../capabilities/actionsRegistry.ts';
import type { MetadataRegistry } from '../../capabilities/metadataRegistry.ts';
import type { ActionInputField, ResolvedAction } from '../../metadata/actionTypes.ts';
import type { ResolvedAgent } from '../../metadata/agentTypes.ts';
import type { ResolvedObject } from '../../metadata/types.ts';
import type { ToolSpec } from './providerClient.ts';

type Schema = Record<string, unknown>;

const ID = { type: 'string', minLength: 1, maxLength: 64 };

/** The objects the tools name: the API-served app objects (security still applies to every call). */
export function toolObjects(metadata: MetadataRegistry): ResolvedObject[] {
  return metadata.objects().filter((o) => o.apiEnabled && !o.system);
}

function describeObjects(objects: ResolvedObject[]): string {
  return objects.map((o) => `${o.name} (${Object.keys(o.fields).join(', ')})`).join('; ').slice(0, 4000);
}

function inputSchema(field: ActionInputField): Schema {
  const described = { ...(field.label ? { title: field.label } : {}), ...(field.help ? { description: field.help } : {}) };
  switch (field.type) {
    case 'integer': return { type: 'integer', ...(field.min !== undefined ? { minimum: field.min } : {}), ...(field.max !== undefined ? { maximum: field.max } : {}), ...described };
    case 'number': case 'currency': case 'percent': return { type: 'number', ...(field.min !== undefined ? { minimum: field.min } : {}), ...(field.max !== undefined ? { maximum: field.max } : {}), ...described };
    case 'boolean': return { type: 'boolean', ...described };
    case 'date': return { type: 'string', format: 'date', ...described };
    case 'datetime': return { type: 'string', format: 'date-time', ...described };
    case 'select': return { type: 'string', enum: [...(field.options ?? [])], ...described };
    case 'multiselect': return { type: 'array', items: { type: 'string', enum: [...(field.options ?? [])] }, ...described };
    case 'lookup': return { ...ID, description: `Id of a ${field.reference} record` };
    case 'json': return { ...described };
    default: return { type: 'string', ...(field.maxLength ? { maxLength: field.maxLength } : {}), ...described };
  }
}

/** `action_<name>`: the action's input, plus `recordId` for a record action. */
export function actionToolSpec(action: ResolvedAction): ToolSpec {
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  if (action.object) {
    properties.recordId = { ...ID, description: `Id of the ${action.object} record the action runs on` };
    required.push('recordId');
  }
  for (const [name, field] of Object.entries(action.input)) {
    properties[name] = inputSchema(field);
    if (field.required) required.push(name);
  }
  return {
    name: `action_${action.name}`,
    description: `Propose the action '${action.label}'${action.description ? `: ${action.description}` : ''}. It is queued for human approval; nothing changes until a person approves it.`,
    parameters: { type: 'object', additionalProperties: false, properties, ...(required.length > 0 ? { required } : {}) },
  };
}

/** The tools an agent lists, with JSON schemas generated from the loaded objects and actions. */
export function toolSpecs(agent: ResolvedAgent, metadata: MetadataRegistry, actions: ActionsRegistry | undefined, maxRows: number): ToolSpec[] {
  const objects = toolObjects(metadata);
  const names = objects.map((o) => o.name);
  const objectName = { type: 'string', enum: names, description: `One of: ${describeObjects(objects)}` };
  // The write tools also name the access objects the agent declares (accessObjects), and no other.
  const declared = agent.accessObjects.map((name) => metadata.object(name)).filter((o): o is ResolvedObject => o !== undefined && o.apiEnabled);
  const writable = declared.length === 0 ? objectName : { type: 'string', enum: [...names, ...declared.map((o) => o.name)], description: `One of: ${describeObjects([...objects, ...declared])}` };
  const specs: ToolSpec[] = [];
  for (const tool of agent.tools) {
    if (tool === 'query_data') {
      specs.push({
        name: tool,
        description: 'Read records the user may see, as a structured query (the body of POST /data/:object/query). Answers { items } or { error }.',
        parameters: {
          type: 'object', additionalProperties: false, required: ['object'],
          properties: {
            object: objectName,
            where: { type: 'object', description: 'Filter, e.g. { "status": "open", "score": { "$gt": 3 } }' },
            fields: { type: 'array', items: { type: 'string' }, description: 'Fields to return' },
            orderBy: { type: 'array', items: { type: 'object', properties: { field: { type: 'string' }, order: { type: 'string', enum: ['asc', 'desc'] } }, required: ['field'] } },
            limit: { type: 'integer', minimum: 1, maximum: maxRows },
            groupBy: { type: 'array', items: { type: 'string' } },
            aggregations: { type: 'array', items: { type: 'object', properties: { function: { type: 'string', enum: ['count', 'sum', 'avg', 'min', 'max'] }, field: { type: 'string' }, alias: { type: 'string' } }, required: ['function', 'alias'] } },
          },
        },
      });
    } else if (tool === 'validate_expression') {
      specs.push({
        name: tool,
        description: "Type-check a CEL expression (formula, validation rule) against an object's fields, as the metadata loader does. Answers { valid, errors }.",
        parameters: {
          type: 'object', additionalProperties: false, required: ['object', 'expression'],
          properties: { object: objectName, expression: { type: 'string', maxLength: 4000 }, returns: { type: 'string', enum: ['text', 'number', 'boolean', 'date', 'datetime'] } },
        },
      });
    } else if (tool === 'create_record') {
      specs.push({ name: tool, description: 'Propose a new record. Queued for human approval; nothing is written until a person approves it.', parameters: { type: 'object', additionalProperties: false, required: ['object', 'values'], properties: { object: writable, values: { type: 'object', description: 'Field values of the new record' } } } });
    } else if (tool === 'update_record') {
      specs.push({ name: tool, description: 'Propose changes to a record. Queued for human approval; it applies only if the record is still at the version read.', parameters: { type: 'object', additionalProperties: false, required: ['object', 'id', 'values'], properties: { object: writable, id: ID, values: { type: 'object' }, expectedVersion: { type: 'integer', minimum: 1 } } } });
    } else if (tool === 'delete_record') {
      specs.push({ name: tool, description: 'Propose deleting a record. Queued for human approval.', parameters: { type: 'object', additionalProperties: false, required: ['object', 'id'], properties: { object: writable, id: ID } } });
    } else if (tool.startsWith('action_')) {
      // Without the actions registry (the actions plugin off) the action tools are absent.
      const action = actions?.get(tool.slice('action_'.length));
      if (action) specs.push(actionToolSpec(action));
    }
  }
  return specs;
}
