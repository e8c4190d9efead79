import { defineCapability } from './defineCapability.ts';

export interface EnvironmentInfo {
  id: string;
  label: string;
  databaseUrl: string;
  /** PostgreSQL schema of the environment, or null for the URL's default. */
  schema: string | null;
}

/** Settings every part of the runtime may read; resolved config, never secrets. */
export interface RuntimeInfo {
  version: string;
  protocol: string;
  dataDir: string;
  /** Database of the default environment. */
  databaseUrl: string;
  /** Every hosted environment; requests choose one by X-Environment-Id or the path prefix. */
  environments: EnvironmentInfo[];
  defaultEnvironment: string;
  redisUrl: string | null;
  requireAuth: boolean;
  apps: string[];
  production: boolean;
}

export const runtimeInfo = defineCapability<RuntimeInfo>()({
  id: 'runtime.info',
  cardinality: 'single',
  description: 'Read resolved runtime settings: version, environments and their databases, requireAuth (provided by the kernel host).',
});
