import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { silentLogger, type Logger } from '../kernel/logger.ts';
import type { RuntimeConfigInput } from './configSchema.ts';
import { createRuntime, type Runtime } from './createRuntime.ts';
import type { BuiltinPlugin } from './resolvePlugins.ts';

export interface TestRuntimeOptions {
  /** Config merged over test defaults (temporary data dir, no socket, quiet logs, fixed secret). */
  config?: RuntimeConfigInput;
  /** Directory paths in config (apps, plugin paths) are relative to this (default: the working directory). */
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  builtins?: readonly BuiltinPlugin[];
}

export interface TestRuntime {
  runtime: Runtime;
  inject(options: InjectOptions | string): Promise<LightMyRequestResponse>;
  /** Stops the runtime and removes the temporary data directory. */
  close(): Promise<void>;
}

/**
 * Boot a whole runtime for a test: real plugins, real database, requests in-process.
 * Plugin authors use it to test a plugin inside the runtime it will run in: it is the package's
 * `osr-runtime/testing` (docs/plugins.md).
 */
export async function startTestRuntime(options: TestRuntimeOptions = {}): Promise<TestRuntime> {
  const dataDir = mkdtempSync(join(tmpdir(), 'osr-test-'));
  const given = options.config ?? {};
  const config: RuntimeConfigInput = {
    apps: [],
    ...given,
    dataDir: given.dataDir ?? dataDir,
    server: { listen: false, logRequests: false, ...given.server },
    auth: { secret: 'test-secret-0123456789-0123456789-abcdef', ...given.auth },
  };
  let runtime: Runtime;
  try {
    runtime = await createRuntime({
      inline: config,
      cwd: options.cwd ?? process.cwd(),
      env: options.env ?? {},
      logger: options.logger ?? silentLogger(),
      ...(options.builtins ? { builtins: options.builtins } : {}),
    });
    await runtime.start();
  } catch (error) {
    // A config or boot error leaves no temporary directory behind.
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  return {
    runtime,
    inject: (request) => runtime.http().inject(request),
    async close() {
      await runtime.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
