import type { BuiltinPlugin } from '../runtime/resolvePlugins.ts';
import http from './http/index.ts';

/** First-party plugins, in their default order (the kernel reorders by requires -> provides). */
export const BUILTIN_PLUGINS: readonly BuiltinPlugin[] = [
  { manifest: http, enabledByDefault: true, optionsFrom: (config) => ({ ...config.server }) },
];
