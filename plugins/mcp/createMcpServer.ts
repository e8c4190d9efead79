import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema, ErrorCode, ListResourcesRequestSchema, ListResourceTemplatesRequestSchema, ListToolsRequestSchema,
  McpError, ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { isCodedError } from '../../kernel/errors.ts';
import { errorResult, type CallContext, type Toolbox } from './createToolbox.ts';
import type { ObjectViewService } from './objectView.ts';
import { scopeRefusal } from '../../capabilities/credentialScopes.ts';

/** What a request handler learns of its call; the caller is resolved from it on every request. */
export type CallerOf = (extra: { authInfo?: { extra?: Record<string, unknown> }; requestId: string | number }) => Promise<CallContext>;

export const RESOURCE_PREFIX = 'osr://objects/';

const INSTRUCTIONS = 'Records of this application, read and written as the signed-in user (row and field security apply). '
  + 'Start with list_objects and describe_object; query_records pages with nextCursor. Errors carry { error: { code, message, details } }.';

/** A coded refusal outside tools/call (listing, resources) as a JSON-RPC error carrying the code. */
function protocolError(error: unknown): never {
  if (isCodedError(error)) {
    const code = error.status === 404 ? ErrorCode.InvalidParams : error.status < 500 ? ErrorCode.InvalidRequest : ErrorCode.InternalError;
    throw new McpError(code, error.message, { error: error.toJSON() });
  }
  throw error;
}

/**
 * One MCP protocol server (one per HTTP session, one for stdio): tools and object-schema resources.
 * The caller is resolved on every request, never remembered: a revoked credential stops at once.
 */
export function createMcpServer(version: string, toolbox: Toolbox, objects: ObjectViewService, callerOf: CallerOf): Server {
  const server = new Server(
    { name: 'osr-runtime', title: 'osr runtime', version },
    { capabilities: { tools: { listChanged: false }, resources: { listChanged: false } }, instructions: INSTRUCTIONS },
  );

  server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
    const ctx = await callerOf(extra).catch(protocolError);
    return { tools: toolbox.list(ctx.principal) };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    let ctx: CallContext;
    try {
      ctx = await callerOf(extra);
    } catch (error) {
      if (isCodedError(error)) return errorResult(error);
      throw error;
    }
    return toolbox.call(request.params.name, request.params.arguments ?? {}, { ...ctx, signal: extra.signal });
  });

  server.setRequestHandler(ListResourcesRequestSchema, async (_request, extra) => {
    try {
      const ctx = await callerOf(extra);
      if (scopeRefusal(ctx.principal, 'data:read', 'MCP resources/list')) return { resources: [] };
      const list = await objects.list(ctx.principal);
      return {
        resources: list.map((o) => ({
          uri: `${RESOURCE_PREFIX}${o.name}`, name: o.name, title: o.label, mimeType: 'application/json',
          description: `Schema of ${o.label}: the fields you may read${o.description ? `. ${o.description}` : ''}`,
        })),
      };
    } catch (error) {
      return protocolError(error);
    }
  });

  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [{ uriTemplate: `${RESOURCE_PREFIX}{object}`, name: 'object-schema', title: 'Object schema', mimeType: 'application/json', description: 'The schema of an object, as describe_object answers it' }],
  }));

  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    try {
      const ctx = await callerOf(extra);
      const refusal = scopeRefusal(ctx.principal, 'data:read', 'MCP resources/read');
      if (refusal) throw refusal;
      const { uri } = request.params;
      const name = uri.startsWith(RESOURCE_PREFIX) ? uri.slice(RESOURCE_PREFIX.length) : '';
      if (!/^[a-z][a-z0-9_]{0,62}$/.test(name)) throw new McpError(ErrorCode.InvalidParams, `Unknown resource ${uri.slice(0, 200)}: resources are ${RESOURCE_PREFIX}<object>`);
      const view = await objects.describe(ctx, name);
      return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(view) }] };
    } catch (error) {
      return protocolError(error);
    }
  });

  return server;
}
