import { z } from 'zod';

const origin = z.url().regex(/^https?:\/\/[^/]+\/?$/, 'must be an origin without a path, such as https://app.example.com');

/** Options of the mcp plugin (`plugins.mcp`); docs/mcp.md. */
export const mcpOptionsSchema = z.strictObject({
  /** The server's public origin: the one Host (and browser Origin) accepted; default: auth's baseURL, else loopback hosts only. */
  publicOrigin: origin.optional(),
  /** More Host values accepted (`name` on any port, or `name:port`). */
  allowedHosts: z.array(z.string().min(1).max(255)).max(100).default([]),
  /** More browser origins accepted. */
  allowedOrigins: z.array(origin).max(100).default([]),
  /** Refuse requests whose Host or Origin is not allowed (on by default; turn off only behind a proxy that checks them). */
  dnsRebindingProtection: z.boolean().default(true),
  /** Open sessions at most in this process; a new one beyond closes the least recently used session of the user holding the most. */
  maxSessions: z.number().int().min(1).max(100_000).default(1_000),
  /** Open sessions at most per credential (API key or bearer token); a new one beyond closes that credential's least recently used. */
  maxSessionsPerCredential: z.number().int().min(1).max(100_000).default(10),
  /** Open sessions at most per user, across her credentials; a new one beyond closes her least recently used. */
  maxSessionsPerUser: z.number().int().min(1).max(100_000).default(25),
  /** A session unused this long (ms) is closed. */
  sessionIdleMs: z.number().int().min(1_000).max(86_400_000).default(1_800_000),
  /** Longest tool answer, in characters of JSON; a longer one is refused with MCP_RESULT_TOO_LARGE. */
  maxResultChars: z.number().int().min(1_000).max(10_000_000).default(200_000),
  /** Serve Streamable HTTP at /api/v1/mcp; `osr mcp --stdio` turns it off. */
  http: z.boolean().default(true),
});

export type McpOptions = z.output<typeof mcpOptionsSchema>;
