import type { Readable, Writable } from 'node:stream';
import { defineCapability } from './defineCapability.ts';

export interface StdioOptions {
  /** The API key the session runs as (its user, its scopes); verified again before every call. */
  apiKey: string;
  /** Environment whose data the tools reach; default: the runtime's default environment. */
  environmentId?: string;
  input: Readable;
  output: Writable;
}

export interface McpServerService {
  /**
   * Serve the MCP tools over a stdio pair as the holder of `apiKey`. Refuses (MCP_STDIO_KEY_INVALID)
   * a key that does not verify, before reading anything. `closed` settles when the input ends.
   */
  serveStdio(options: StdioOptions): Promise<{ closed: Promise<void>; close(): Promise<void> }>;
}

export const mcpServer = defineCapability<McpServerService>()({
  id: 'mcp.server',
  cardinality: 'single',
  description: 'The MCP server: its tools served over stdio for the CLI (Streamable HTTP is served at /api/v1/mcp).',
});
