// First: a V8 setting that must be in place before the other modules run (see heapTuning.ts).
import { limitHeapGrowth } from './heapTuning.ts';
import type { HttpServer } from '../capabilities/httpServer.ts';
import { createKernel, type Kernel } from '../kernel/createKernel.ts';
import { createLogger, type Logger } from '../kernel/logger.ts';
import { PROTOCOL_VERSION } from '../kernel/protocol.ts';
import { BUILTIN_PLUGINS } from '../plugins/builtin.ts';
import { createSecretsKeys } from './deriveKeys.ts';
import { loadConfig, type LoadConfigOptions, type ResolvedConfig } from './loadConfig.ts';
import { resolvePlugins, type BuiltinPlugin } from './resolvePlugins.ts';
import { resolveSecret, type SecretSource } from './resolveSecret.ts';
import { RUNTIME_VERSION } from './version.ts';

export interface RuntimeOptions extends LoadConfigOptions {
  logger?: Logger;
  builtins?: readonly BuiltinPlugin[];
  /**
   * Outside production, with no `auth.admin`: a start that finds no admin creates one with a
   * one-time password and prints it once (`osr start` asks for it; tests and embedders do not).
   */
  developmentAdmin?: boolean;
}

export interface Runtime {
  config: ResolvedConfig;
  kernel: Kernel;
  secret: SecretSource;
  logger: Logger;
  /** Boot every plugin; throws one KernelBootError listing every problem. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The HTTP server once started (in-process requests, address). */
  http(): HttpServer;
}

/** Load config, resolve plugins and the secret, and assemble the kernel. Nothing runs until start(). */
export async function createRuntime(options: RuntimeOptions = {}): Promise<Runtime> {
  const config = await loadConfig(options);
  const logger = options.logger ?? createLogger({ level: config.log.level });
  const secret = resolveSecret({ secret: config.auth.secret, dataDir: config.dataDir, production: config.production }, logger);
  const plugins = await resolvePlugins(config, options.builtins ?? BUILTIN_PLUGINS);
  if (options.developmentAdmin && !config.production && !config.auth.admin) {
    const auth = plugins.find((p) => p.source === 'builtin' && p.manifest.name === 'auth');
    const host = ['0.0.0.0', '::', ''].includes(config.server.host) ? 'localhost' : config.server.host.includes(':') ? `[${config.server.host}]` : config.server.host;
    if (auth) auth.options = { developmentAdmin: { origin: `http://${host}:${config.server.port}` }, ...(auth.options as Record<string, unknown>) };
  }
  const kernel = createKernel({
    plugins,
    logger,
    secrets: createSecretsKeys(secret.secret),
    runtimeInfo: {
      version: RUNTIME_VERSION,
      protocol: PROTOCOL_VERSION,
      dataDir: config.dataDir,
      databaseUrl: config.databaseUrl,
      environments: config.environments,
      defaultEnvironment: config.environmentId,
      redisUrl: config.redisUrl,
      requireAuth: config.api.requireAuth,
      apps: config.apps,
      production: config.production,
    },
  });
  let cancelHeapLimit = (): void => undefined;
  return {
    config,
    kernel,
    secret,
    logger,
    async start() {
      await kernel.boot();
      cancelHeapLimit = limitHeapGrowth();
    },
    stop: () => {
      cancelHeapLimit();
      return kernel.stop();
    },
    http() {
      const server = kernel.service<HttpServer>('http.server');
      if (!server) throw new Error('the http plugin is not running');
      return server;
    },
  };
}
