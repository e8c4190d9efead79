import type { ActionsRegistry } from '../../capabilities/actionsRegistry.ts';
import { holdsPermission } from '../../capabilities/holdsPermission.ts';
import type { Principal } from '../../capabilities/authSession.ts';
import type { DataContext, DataEngine } from '../../capabilities/dataEngine.ts';
import type { MetadataRegistry } from '../../capabilities/metadataRegistry.ts';
import type { SearchIndex } from '../../capabilities/searchIndex.ts';
import { codedError, isCodedError, type CodedError } from '../../kernel/errors.ts';
import type { Logger } from '../../kernel/logger.ts';
import { apiObject } from '../../metadata/apiObject.ts';
import type { ObjectViewService } from './objectView.ts';
import { holdsScope, scopeRefusal } from '../../capabilities/credentialScopes.ts';
import { DEFAULT_LIMIT, issuesOf, jsonSchemaOf, MAX_LIMIT, TOOL_SPECS, type BuiltinToolName, type ToolSpec } from './toolSchemas.ts';

export const ACTION_PREFIX = 'action_';

/** A tool as tools/list describes it. */
export interface ToolDescription {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations: { readOnlyHint: boolean; destructiveHint?: boolean; openWorldHint: false };
}

export interface ToolResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** Who calls: the principal, the environment, and the request id for the logs. */
export type CallContext = DataContext & { principal: Principal };

export interface ToolboxDeps {
  engine: DataEngine;
  metadata: MetadataRegistry;
  objects: ObjectViewService;
  search: SearchIndex | undefined;
  actions: ActionsRegistry | undefined;
  log: Logger;
  /** Longest tool answer, in characters of JSON. */
  maxResultChars: number;
}

/** An action without a permission key is open to every caller; one with a key, to its holders. */
function hasPermission(principal: Principal, permission: string | null): boolean {
  return permission === null || holdsPermission(principal, permission);
}

/** A tool error carrying the coded error, as MCP clients read it (isError) and as the data API writes it. */
export function errorResult(error: CodedError): ToolResult {
  const body = { error: error.toJSON() };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
}

/**
 * The MCP tools over the secured pipeline: every call runs through the data engine, the search
 * index or the action registry as the caller (RLS, FLS, org scoping apply there), after the
 * credential's scope ceiling. Answers are bounded: pages are capped, and an answer longer than
 * maxResultChars is refused with what to ask for instead.
 */
export function createToolbox(deps: ToolboxDeps) {
  const { engine, metadata, objects } = deps;
  const specs = new Map<string, ToolSpec>(TOOL_SPECS.map((spec) => [spec.name, spec]));
  const schemas = new Map<string, Record<string, unknown>>(TOOL_SPECS.map((spec) => [spec.name, jsonSchemaOf(spec.input)]));

  const describeSpec = (spec: ToolSpec): ToolDescription => ({
    name: spec.name, title: spec.title, description: spec.description, inputSchema: schemas.get(spec.name)!,
    annotations: { readOnlyHint: spec.readOnly, ...(spec.destructive ? { destructiveHint: true } : {}), openWorldHint: false },
  });

  const searchable = () => deps.search !== undefined;

  function actionTools(principal: Principal): ToolDescription[] {
    if (!deps.actions || !holdsScope(principal, 'actions:execute')) return [];
    return deps.actions.list().filter((a) => hasPermission(principal, a.permission)).map((action) => ({
      name: `${ACTION_PREFIX}${action.name}`,
      title: action.label,
      description: `Run the action ${action.label}${action.description ? `: ${action.description}` : ''}${action.object ? ` (on a ${action.object} record: recordId)` : ''}.`,
      inputSchema: deps.actions!.inputSchema(action.name) ?? { type: 'object' },
      annotations: { readOnlyHint: false, openWorldHint: false },
    }));
  }

  /** Page size: the asked one (default 20) brought down to the object's maxPageSize and the tool cap. */
  const pageSize = (object: string, asked: number | undefined) => Math.min(asked ?? DEFAULT_LIMIT, MAX_LIMIT, apiObject(metadata, object, 'list').maxPageSize);

  const run: Record<BuiltinToolName, (args: any, ctx: CallContext) => Promise<unknown>> = { // eslint-disable-line @typescript-eslint/no-explicit-any
    list_objects: async (_args, ctx) => ({ objects: await objects.list(ctx.principal) }),
    describe_object: (args: { object: string }, ctx) => objects.describe(ctx, args.object),
    query_records: async (args: { object: string; where?: object; fields?: string[]; orderBy?: object[]; limit?: number; cursor?: string }, ctx) => {
      const limit = pageSize(args.object, args.limit);
      const query: Record<string, unknown> = { limit };
      if (args.where !== undefined) query.where = args.where;
      if (args.fields !== undefined) query.fields = args.fields;
      if (args.orderBy !== undefined) query.orderBy = args.orderBy;
      if (args.cursor !== undefined) query.cursor = args.cursor;
      const page = await engine.query(args.object, query, ctx, { total: false });
      return { items: page.items, nextCursor: page.nextCursor ?? null, limit };
    },
    get_record: (args: { object: string; id: string; fields?: string[] }, ctx) => {
      apiObject(metadata, args.object, 'get');
      return engine.get(args.object, args.id, args.fields ? { select: args.fields } : {}, ctx);
    },
    create_record: (args: { object: string; values: Record<string, unknown> }, ctx) => {
      apiObject(metadata, args.object, 'create');
      return engine.create(args.object, args.values, ctx);
    },
    update_record: (args: { object: string; id: string; values: Record<string, unknown>; expectedVersion?: number }, ctx) => {
      apiObject(metadata, args.object, 'update');
      return engine.update(args.object, args.id, args.values, args.expectedVersion === undefined ? {} : { expectedVersion: args.expectedVersion }, ctx);
    },
    delete_record: async (args: { object: string; id: string; expectedVersion?: number }, ctx) => {
      apiObject(metadata, args.object, 'delete');
      await engine.delete(args.object, args.id, args.expectedVersion === undefined ? {} : { expectedVersion: args.expectedVersion }, ctx);
      return { deleted: true, object: args.object, id: args.id };
    },
    search: async (args: { q: string; objects?: string[]; limit?: number }, ctx) => {
      if (!deps.search) throw codedError('SERVICE_OFF', { service: 'Search', reason: 'the search plugin is not enabled', fix: 'enable plugins.search' });
      if (args.q.trim() === '') throw codedError('VALIDATION_ERROR', { summary: 'q must contain text to search for', errors: [{ path: 'q', message: 'must contain text to search for' }] });
      const indexed = deps.search.objects();
      const serves = (name: string) => {
        const object = metadata.object(name);
        return object !== undefined && object.apiEnabled && (object.apiMethods === null || object.apiMethods.includes('search'));
      };
      let names: string[];
      if (args.objects) {
        for (const name of args.objects) {
          apiObject(metadata, name, 'search');
          if (!indexed.includes(name)) throw codedError('VALIDATION_ERROR', { summary: `object '${name}' has no searchable fields`, errors: [{ path: 'objects', message: `${name} has no searchable fields` }] });
        }
        names = args.objects;
      } else names = indexed.filter(serves);
      return deps.search.search({ q: args.q, objects: names, limit: args.limit ?? DEFAULT_LIMIT }, ctx);
    },
  };

  function bounded(tool: string, value: unknown): ToolResult {
    const text = JSON.stringify(value ?? null);
    if (text.length > deps.maxResultChars) throw codedError('MCP_RESULT_TOO_LARGE', { tool, size: text.length, limit: deps.maxResultChars });
    const structured = typeof value === 'object' && value !== null && !Array.isArray(value) ? { structuredContent: value as Record<string, unknown> } : {};
    return { content: [{ type: 'text', text }], ...structured };
  }

  async function callOrThrow(name: string, args: unknown, ctx: CallContext): Promise<ToolResult> {
    const spec = specs.get(name);
    if (spec) {
      const refusal = scopeRefusal(ctx.principal, spec.scope, `the MCP tool ${name}`);
      if (refusal) throw refusal;
      const parsed = spec.input.safeParse(args ?? {});
      if (!parsed.success) {
        const errors = issuesOf(parsed.error);
        throw codedError('VALIDATION_ERROR', { summary: errors.map((e) => `${e.path} ${e.message}`).join('; '), errors });
      }
      return bounded(name, await run[name as BuiltinToolName](parsed.data, ctx));
    }
    if (name.startsWith(ACTION_PREFIX) && deps.actions?.get(name.slice(ACTION_PREFIX.length))) {
      const refusal = scopeRefusal(ctx.principal, 'actions:execute', `the MCP tool ${name.slice(0, 128)}`);
      if (refusal) throw refusal;
      const { result } = await deps.actions.run(name.slice(ACTION_PREFIX.length), args ?? {}, ctx.principal, { environmentId: ctx.environmentId, ...(ctx.requestId ? { requestId: ctx.requestId } : {}) });
      return bounded(name, { result });
    }
    throw codedError('NOT_FOUND', { what: `Tool '${name.slice(0, 128)}'`, tool: name.slice(0, 128) });
  }

  return {
    /** The tools this caller may use under its scopes (a call of another still answers why not). */
    list(principal: Principal): ToolDescription[] {
      const builtins = TOOL_SPECS.filter((spec) => holdsScope(principal, spec.scope) && (spec.name !== 'search' || searchable()));
      return [...builtins.map((spec) => describeSpec(spec)), ...actionTools(principal)];
    },

    /** Run a tool; every refusal or failure is a tool error carrying the coded error. */
    async call(name: string, args: unknown, ctx: CallContext): Promise<ToolResult> {
      try {
        return await callOrThrow(name, args, ctx);
      } catch (error) {
        if (isCodedError(error)) return errorResult(error);
        deps.log.error({ err: error, tool: name }, 'MCP tool failed');
        return errorResult(codedError('INTERNAL', { requestId: ctx.requestId ?? 'unknown' }));
      }
    },
  };
}

export type Toolbox = ReturnType<typeof createToolbox>;
