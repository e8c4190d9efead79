import { z } from 'zod';
import { phoneNumberSettingSchema } from '../plugins/auth/phoneNumberOptions.ts';
import { httpOptionsSchema } from '../plugins/http/httpOptions.ts';
import { retentionOverridesSchema } from '../plugins/lifecycle/lifecycleOptions.ts';
import { smsOptionsSchema } from '../plugins/sms/smsOptions.ts';

/** Keys of `plugins.<name>` that the host reads; every other key is that plugin's option. */
export const PLUGIN_ENTRY_KEYS = ['enabled', 'grants', 'path', 'package', 'timeoutMs'] as const;

const pluginEntry = z.looseObject({
  /** false switches the plugin off (a boot error names whatever still requires it). */
  enabled: z.boolean().optional(),
  /** Capabilities granted to a third-party plugin; first-party plugins are granted what they require. */
  grants: z.array(z.string()).optional(),
  /** Third-party plugin from a local folder or file (relative to the config file). */
  path: z.string().min(1).optional(),
  /** Third-party plugin from an installed npm package. */
  package: z.string().min(1).optional(),
  /** Per-phase timeout (register, start, ready) in milliseconds. */
  timeoutMs: z.number().int().positive().optional(),
});

/** Environment ids name database files and schemas: no dots, slashes or upper case. */
export const ENVIRONMENT_ID = /^[a-z0-9][a-z0-9-]{0,62}$/;

const environment = z.strictObject({
  id: z.string().regex(ENVIRONMENT_ID, 'must be lower-case letters, digits and dashes'),
  label: z.string().optional(),
  /** Database of this environment; default: a SQLite file, or a schema of the main PostgreSQL database. */
  databaseUrl: z.string().optional(),
});

export const configSchema = z.strictObject({
  /** Metadata app directories, relative to the config file. */
  apps: z.array(z.string()).default(['metadata/apps/crm']),
  /** Where SQLite files and the generated development secret live (env OS_DATA_DIR). */
  dataDir: z.string().default('data'),
  /** Listening socket, limits and timeouts: the http plugin's options (plugins/http/httpOptions.ts). */
  server: httpOptionsSchema.prefault({}),
  database: z.strictObject({
    /** `sqlite:PATH` or `postgres://...` (env DATABASE_URL). Default: sqlite under dataDir. */
    url: z.string().optional(),
  }).default({}),
  redis: z.strictObject({
    /** Enables Redis-backed jobs and events when set (env REDIS_URL). */
    url: z.string().optional(),
  }).default({}),
  api: z.strictObject({
    /** Every /api/v1 route needs a credential unless public. */
    requireAuth: z.boolean().default(true),
  }).default({ requireAuth: true }),
  auth: z.strictObject({
    /** Base secret (env OS_AUTH_SECRET, alias AUTH_SECRET). Prefer the environment variable. */
    secret: z.string().min(32, 'must be at least 32 characters').optional(),
    /** First tenant admin, created once at first boot (env OS_ADMIN_EMAIL, OS_ADMIN_PASSWORD). */
    admin: z.strictObject({ email: z.email(), password: z.string().min(8) }).optional(),
    trustedOrigins: z.array(z.string()).default([]),
    /** Optional sign-in methods. */
    plugins: z.strictObject({
      /** Phone-number sign-in with SMS codes: true, or an object of options (plugins/auth/phoneNumberOptions.ts). Needs `sms`. */
      phoneNumber: phoneNumberSettingSchema.optional(),
    }).optional(),
  }).default({ trustedOrigins: [] }),
  /** Text messages (the sms plugin): provider, sender, provider endpoints. Its presence turns the plugin on. */
  sms: smsOptionsSchema.optional(),
  plugins: z.record(z.string().regex(/^(@[a-z0-9-]+\/)?[a-z][a-z0-9-]*$/, 'plugin names are kebab-case'), pluginEntry).default({}),
  /** Data lifecycle (docs/lifecycle.md); the plugin is off with OS_LIFECYCLE_DISABLED=1. */
  lifecycle: z.strictObject({
    /** Retention contract name -> days to keep (0 keeps forever); a name no plugin declared fails the boot. */
    retention_overrides: retentionOverridesSchema.default({}),
  }).default({ retention_overrides: {} }),
  /** Hosted environments; empty means one environment (env OS_ENVIRONMENT_ID, default `default`). */
  environments: z.array(environment).default([]),
  log: z.strictObject({
    level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  }).default({ level: 'info' }),
});

export type RuntimeConfigInput = z.input<typeof configSchema>;
export type RuntimeConfig = z.output<typeof configSchema>;
export type PluginConfigEntry = z.output<typeof pluginEntry>;

/** Typed helper for runtime.config.ts. */
export function defineConfig(config: RuntimeConfigInput): RuntimeConfigInput {
  return config;
}
