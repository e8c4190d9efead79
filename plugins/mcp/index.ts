import { definePlugin } from '../../kernel/definePlugin.ts';
import type { CallerOf } from './createMcpServer.ts';
import { createToolbox } from './createToolbox.ts';
import { mcpOptionsSchema } from './mcpOptions.ts';
import { addMcpRoutes, callerFromRequest, type HttpSession } from './mcpRoute.ts';
import { createObjectView } from './objectView.ts';
import { createStdioService } from './serveStdio.ts';
import { SessionStore } from './sessionStore.ts';

interface State {
  store: SessionStore<HttpSession>;
  sweeper: NodeJS.Timeout | null;
}

const states = new WeakMap<object, State>();

/**
 * The MCP server: tools over the data engine, search and actions, and object-schema resources,
 * served over Streamable HTTP at /api/v1/mcp (API keys and bearer tokens, sessions bound to their
 * owner, Host and Origin checked) and over stdio for `osr mcp --stdio`. See docs/mcp.md.
 */
export default definePlugin({
  name: 'mcp',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['data.engine', 'metadata.registry', 'access.grants', 'auth.session', 'http.routes', 'runtime.info'],
  optional: ['search.index', 'actions.registry'],
  provides: ['mcp.server'],
  options: mcpOptionsSchema,
  register(ctx) {
    const options = ctx.options;
    const info = ctx.resolve('runtime.info');
    const metadata = ctx.resolve('metadata.registry');
    const grants = ctx.resolve('access.grants');
    const objects = createObjectView(metadata, grants);
    const toolbox = createToolbox({
      engine: ctx.resolve('data.engine'), metadata, objects,
      search: ctx.resolve('search.index'), actions: ctx.resolve('actions.registry'),
      log: ctx.log, maxResultChars: options.maxResultChars,
    });
    // The MCP SDK loads with the first session, not at boot (about 0.15 s of imports).
    const build = async (callerOf: CallerOf) => (await import('./createMcpServer.ts')).createMcpServer(info.version, toolbox, objects, callerOf);
    const store = new SessionStore<HttpSession>({
      max: options.maxSessions, perCredential: options.maxSessionsPerCredential, perUser: options.maxSessionsPerUser, idleMs: options.sessionIdleMs,
    });
    states.set(ctx, { store, sweeper: null });
    ctx.provide('mcp.server', createStdioService({ auth: ctx.resolve('auth.session'), grants, defaultEnvironment: info.defaultEnvironment, createServer: build }));
    if (options.http) {
      addMcpRoutes(ctx.resolve('http.routes'), {
        policy: { enabled: options.dnsRebindingProtection, publicOrigin: options.publicOrigin ?? null, allowedHosts: options.allowedHosts, allowedOrigins: options.allowedOrigins },
        store, createServer: () => build(callerFromRequest), log: ctx.log,
      });
    }
  },
  ready(ctx) {
    const state = states.get(ctx)!;
    state.sweeper = setInterval(() => void state.store.sweep(), Math.min(60_000, ctx.options.sessionIdleMs));
    state.sweeper.unref();
  },
  async drain(ctx) {
    // Open event streams would hold the HTTP server's close: end the sessions first.
    const state = states.get(ctx);
    if (!state) return;
    if (state.sweeper) clearInterval(state.sweeper);
    await state.store.closeAll();
  },
});
