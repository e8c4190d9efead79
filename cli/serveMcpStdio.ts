import pino from 'pino';
import type { McpServerService } from '../capabilities/mcpServer.ts';
import { codedError } from '../kernel/errors.ts';
import { BUILTIN_PLUGINS } from '../plugins/builtin.ts';
import { createRuntime } from '../runtime/createRuntime.ts';
import type { LoadConfigOptions } from '../runtime/loadConfig.ts';
import type { BuiltinPlugin } from '../runtime/resolvePlugins.ts';

const FIX = 'set OS_MCP_STDIO_ENABLED=true and OS_MCP_STDIO_API_KEY to an API key (POST /api/v1/keys mints one)';

/**
 * The first-party plugins as a stdio server runs them: no listening socket, the mcp plugin on
 * (without its HTTP routes), and credentials verified on every call rather than remembered, so a
 * key revoked by another process stops the next call.
 */
function stdioBuiltins(): BuiltinPlugin[] {
  return BUILTIN_PLUGINS.map((builtin): BuiltinPlugin => {
    const base = builtin.optionsFrom;
    const extend = (extra: Record<string, unknown>): BuiltinPlugin => ({ ...builtin, optionsFrom: (config) => ({ ...base?.(config), ...extra }) });
    switch (builtin.manifest.name) {
      case 'http': return { ...builtin, optionsFrom: (config) => ({ ...base?.(config), listen: false }) };
      case 'auth': return extend({ credentialCacheMs: 0 });
      case 'mcp': return { ...extend({ http: false }), enabledByDefault: true };
      default: return builtin;
    }
  });
}

/**
 * `osr mcp --stdio`: the MCP tools over stdin and stdout as the user (and scopes) of
 * OS_MCP_STDIO_API_KEY. Off unless OS_MCP_STDIO_ENABLED=true; a missing or invalid key stops it
 * before anything is served. Logs go to stderr: stdout carries only protocol messages.
 */
export async function serveMcpStdio(base: LoadConfigOptions, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  if (env.OS_MCP_STDIO_ENABLED !== 'true' && env.OS_MCP_STDIO_ENABLED !== '1') {
    throw codedError('MCP_STDIO_DISABLED', { reason: 'OS_MCP_STDIO_ENABLED is not true', fix: FIX });
  }
  const apiKey = env.OS_MCP_STDIO_API_KEY?.trim();
  if (!apiKey) throw codedError('MCP_STDIO_KEY_INVALID', { reason: 'is not set', fix: FIX });
  const logger = pino({ level: env.LOG_LEVEL ?? 'warn', base: undefined }, pino.destination(2));
  const runtime = await createRuntime({ ...base, env, logger, builtins: stdioBuiltins() });
  await runtime.start();
  let session: Awaited<ReturnType<McpServerService['serveStdio']>>;
  try {
    const mcp = runtime.kernel.service<McpServerService>('mcp.server');
    if (!mcp) throw codedError('MCP_STDIO_DISABLED', { reason: 'the configuration disables the mcp plugin (plugins.mcp.enabled is false)', fix: 'remove plugins.mcp.enabled: false from the configuration' });
    session = await mcp.serveStdio({ apiKey, environmentId: runtime.config.environmentId, input: process.stdin, output: process.stdout });
  } catch (error) {
    await runtime.stop();
    throw error;
  }
  const stop = () => void session.close();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await session.closed;
  await runtime.stop();
  return 0;
}
