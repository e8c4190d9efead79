/** The access world served over a socket with the MCP plugin on, and MCP SDK clients holding API keys. */
import { request } from 'node:http';
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

export interface RawAnswer {
  status: number;
  headers: import('node:http').IncomingHttpHeaders;
  body: string;
}

/** One HTTP request with exactly these headers (Host included), answered in full (an event stream is read until it ends). */
export function rawRequest(url: string, method: string, headers: Record<string, string>, body?: unknown): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request({
      host: target.hostname, port: target.port, path: target.pathname, method,
      headers: { accept: 'application/json, text/event-stream', ...(payload ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) } : {}), ...headers },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

export const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } } };
