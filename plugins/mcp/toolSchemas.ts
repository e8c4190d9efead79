import { z } from 'zod';
import type { CredentialScope } from '../../capabilities/credentialScopes.ts';

/** Page size of query_records when the call sets no limit, and the most it may ask for (the object's maxPageSize may be lower). */
export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;
export const MAX_SEARCH_LENGTH = 200;

const objectName = z.string().regex(/^[a-z][a-z0-9_]{0,62}$/, 'must be an object name (snake_case)').describe('Object name, as list_objects answers it');
const recordId = z.string().min(1).max(64).describe('Record id');
const fieldList = z.array(z.string().min(1).max(63)).min(1).max(200);
const values = z.record(z.string().max(63), z.unknown()).describe('Field name -> value; fields describe_object lists');
const version = z.number().int().positive().describe('The record version last read: the write fails with CONCURRENT_UPDATE if it changed since');

/** A built-in tool: what it is called, what it needs and what it takes. */
export interface ToolSpec {
  name: string;
  title: string;
  description: string;
  scope: CredentialScope;
  input: z.ZodObject;
  /** Reads only (MCP annotation readOnlyHint). */
  readOnly: boolean;
  destructive?: boolean;
}

export const TOOL_SPECS = [
  {
    name: 'list_objects', title: 'List objects', scope: 'data:read', readOnly: true,
    description: 'The objects (record types) the caller may read: name, label and description of each.',
    input: z.strictObject({}),
  },
  {
    name: 'describe_object', title: 'Describe an object', scope: 'data:read', readOnly: true,
    description: 'The schema of one object as the caller sees it: its fields (type, label, required, options, reference) and page size.',
    input: z.strictObject({ object: objectName }),
  },
  {
    name: 'query_records', title: 'Query records', scope: 'data:read', readOnly: true,
    description: `Records of an object matching a structured query (where: a condition tree such as {"status":"open"} or {"amount":{"$gt":100}}; fields; orderBy; limit up to ${MAX_LIMIT}, default ${DEFAULT_LIMIT}; cursor from the previous page's nextCursor).`,
    input: z.strictObject({
      object: objectName,
      where: z.record(z.string(), z.unknown()).optional().describe('Filter condition tree, as in POST /api/v1/data/:object/query'),
      fields: fieldList.optional().describe('Fields to answer (default: every field the caller may read)'),
      orderBy: z.array(z.strictObject({ field: z.string().min(1).max(63), order: z.enum(['asc', 'desc']).optional() })).max(10).optional(),
      limit: z.number().int().min(1).max(MAX_LIMIT).optional(),
      cursor: z.string().min(1).max(4096).optional().describe('nextCursor of the previous page'),
    }),
  },
  {
    name: 'get_record', title: 'Get a record', scope: 'data:read', readOnly: true,
    description: 'One record by id, with the fields the caller may read.',
    input: z.strictObject({ object: objectName, id: recordId, fields: fieldList.optional() }),
  },
  {
    name: 'create_record', title: 'Create a record', scope: 'data:write', readOnly: false,
    description: 'Create a record of an object from field values; answers the stored record (with its id and version).',
    input: z.strictObject({ object: objectName, values }),
  },
  {
    name: 'update_record', title: 'Update a record', scope: 'data:write', readOnly: false,
    description: 'Change fields of a record; expectedVersion makes the write fail if someone changed the record since it was read.',
    input: z.strictObject({ object: objectName, id: recordId, values, expectedVersion: version.optional() }),
  },
  {
    name: 'delete_record', title: 'Delete a record', scope: 'data:write', readOnly: false, destructive: true,
    description: 'Delete a record (to the trash where the object keeps one).',
    input: z.strictObject({ object: objectName, id: recordId, expectedVersion: version.optional() }),
  },
  {
    name: 'search', title: 'Search', scope: 'data:read', readOnly: true,
    description: 'Full-text search over the searchable fields of the records the caller may read, best matches first.',
    input: z.strictObject({
      q: z.string().min(1).max(MAX_SEARCH_LENGTH).describe('Words to find'),
      objects: z.array(objectName).min(1).max(50).optional().describe('Objects to search (default: every searchable one)'),
      limit: z.number().int().min(1).max(MAX_LIMIT).optional(),
    }),
  },
] as const satisfies readonly ToolSpec[];

export type BuiltinToolName = (typeof TOOL_SPECS)[number]['name'];

/** The JSON Schema a tools/list answer carries for a zod input. */
export function jsonSchemaOf(input: z.ZodObject): Record<string, unknown> {
  const { $schema: _drop, ...schema } = z.toJSONSchema(input, { io: 'input' }) as Record<string, unknown>;
  return schema;
}

/** Zod issues as the VALIDATION_ERROR details of the data API: one path and message each. */
export function issuesOf(error: z.ZodError): Array<{ path: string; message: string }> {
  return error.issues.map((issue) => ({ path: issue.path.length > 0 ? issue.path.join('/') : '(arguments)', message: issue.message }));
}
