import type { BuiltinPlugin } from '../runtime/resolvePlugins.ts';
import auth from './auth/index.ts';
import authRoutes from './auth/routes/index.ts';
import crm from './crm/index.ts';
import data from './data/index.ts';
import http from './http/index.ts';
import meta from './meta/index.ts';
import rest from './rest/index.ts';

/** First-party plugins, in their default order (the kernel reorders by requires -> provides). */
export const BUILTIN_PLUGINS: readonly BuiltinPlugin[] = [
  { manifest: http, enabledByDefault: true, optionsFrom: (config) => ({ ...config.server }) },
  {
    manifest: auth,
    enabledByDefault: true,
    optionsFrom: (config) => ({ trustedOrigins: config.auth.trustedOrigins, ...(config.auth.admin ? { admin: config.auth.admin } : {}) }),
  },
  { manifest: authRoutes, enabledByDefault: true },
  { manifest: meta, enabledByDefault: true },
  { manifest: data, enabledByDefault: true },
  { manifest: rest, enabledByDefault: true },
  // Opt-in: the logic of the CRM template app (runtime.config.ts enables it with the app).
  { manifest: crm, enabledByDefault: false },
];
