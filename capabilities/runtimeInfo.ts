import { defineCapability } from './defineCapability.ts';

/** Settings every part of the runtime may read; resolved config, never secrets. */
export interface RuntimeInfo {
  version: string;
  protocol: string;
  dataDir: string;
  databaseUrl: string;
  redisUrl: string | null;
  requireAuth: boolean;
  apps: string[];
  production: boolean;
}

export const runtimeInfo = defineCapability<RuntimeInfo>()({
  id: 'runtime.info',
  cardinality: 'single',
  description: 'Read resolved runtime settings: version, data directory, database URL, requireAuth (provided by the kernel host).',
});
