export { createRuntime } from './createRuntime.ts';
export type { Runtime, RuntimeOptions } from './createRuntime.ts';
export { defineConfig } from './configSchema.ts';
export type { RuntimeConfig, RuntimeConfigInput } from './configSchema.ts';
export { loadConfig } from './loadConfig.ts';
export type { ResolvedConfig } from './loadConfig.ts';
