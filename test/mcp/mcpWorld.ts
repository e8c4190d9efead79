/** The access world served over a socket with the MCP plugin on, and MCP SDK clients holding API keys. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Test } from 'tap';
import type { Site } from '../auth/authHarness.ts';
import { buildWorld, sendAs, type UserKey, type World } from '../access/accessWorld.ts';

export interface McpWorld extends World {
  /** http://127.0.0.1:PORT */
  origin: string;
  endpoint: string;
  /** Mint an API key for a user of the world (through POST /api/v1/keys, as that user). */
  mintKey(user: UserKey, body?: Record<string, unknown>): Promise<{ id: string; key: string }>;
  /** An SDK client connected (initialized) with these headers; closed at teardown. */
  connect(headers: Record<string, string>): Promise<Client>;
}

export async function buildMcpWorld(t: Test, site: Site, mcp: Record<string, unknown> = {}): Promise<McpWorld> {
  const w = await buildWorld(t, site, {
    apps: ['test/mcp/fixtures/app'],
    config: { server: { listen: true, port: 0, host: '127.0.0.1' }, plugins: { email: { enabled: false }, mcp: { enabled: true, ...mcp } } },
  });
  const origin = w.rt.runtime.http().url()!;
  const endpoint = `${origin}/api/v1/mcp`;
  return {
    ...w, origin, endpoint,
    async mintKey(user, body = {}) {
      const res = await sendAs(w.rt, w.users[user].token, 'POST', '/api/v1/keys', { name: `mcp-${user}`, ...body });
      if (res.status !== 201) throw new Error(`mint key for ${user}: ${res.status} ${JSON.stringify(res.body)}`);
      return { id: String(res.body.id), key: String(res.body.key) };
    },
    async connect(headers) {
      const client = new Client({ name: 'osr-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(endpoint), { requestInit: { headers } }));
      t.teardown(() => client.close());
      return client;
    },
  };
}

/** The JSON a tool answered (its text content), and whether it is a tool error. */
export function answerOf(result: unknown): { isError: boolean; body: any } { // eslint-disable-line @typescript-eslint/no-explicit-any
  const r = result as { isError?: boolean; content: Array<{ type: string; text: string }> };
  return { isError: r.isError === true, body: JSON.parse(r.content[0]!.text) };
}
