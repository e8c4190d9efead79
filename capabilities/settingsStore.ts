import { defineCapability } from './defineCapability.ts';

/** The namespaces a tenant admin can set per environment (docs/settings.md). */
export const SETTINGS_NAMESPACES = ['email', 'sms', 'auth', 'ai'] as const;
export type SettingsNamespace = (typeof SETTINGS_NAMESPACES)[number];

/** What an environment's admin set in one namespace, secrets included (decrypted in memory only). */
export interface EffectiveSettings {
  values: Record<string, unknown>;
  /** Changes with every write: a consumer rebuilds what it derived (a mail transport) when it differs. */
  revision: string;
}

export interface SettingsStore {
  /**
   * The namespace's settings in the environment, or null when none are set (the config file and
   * environment variables apply). Cached; a write in any process is seen within a second where
   * the events bus crosses processes (Redis, PostgreSQL), else within the cache's lifetime.
   */
  read(environmentId: string, namespace: SettingsNamespace): Promise<EffectiveSettings | null>;
  /**
   * How the namespace's consumer turns its values (secrets included, as `read` gives them) into
   * what it uses, throwing where it cannot: a coded error whose `details.path` names the key (in
   * the namespace, `smtp.host`), or a zod error. A write the resolver refuses is refused too (400
   * VALIDATION_ERROR naming the path), so no value is stored that the consumer would fail on.
   * Registered in the consumer's register phase; one per namespace.
   */
  resolveWith(namespace: SettingsNamespace, resolve: SettingsResolver): void;
  /**
   * How to connect to a host the settings chose (never to one of the config file): with
   * `plugins.settings.privateHosts: 'deny'` each connection is checked as it is made, so a name
   * re-pointed to the operator's network after the write is refused at use (docs/settings.md,
   * Hosts chosen in settings).
   */
  connections: SettingsConnections;
}

export interface SettingsConnections {
  /** Whether connections are checked (`privateHosts: 'deny'`); with 'allow' they are plain ones. */
  checked: boolean;
  /** `fetch` for a URL whose host the settings chose; redirects it follows are checked too. A refused host fails as a network error (`cause.code` SETTINGS_HOST_REFUSED). */
  fetch: typeof fetch;
  /** A connected TCP socket to host:port (an SMTP server the settings chose); a refused host rejects with code SETTINGS_HOST_REFUSED. */
  connect(host: string, port: number, timeoutMs: number): Promise<import('node:net').Socket>;
}

/** A consumer's reading of a namespace's values: returns when it can use them, throws where it cannot. */
export type SettingsResolver = (values: Record<string, unknown>) => void;

export const settingsStore = defineCapability<SettingsStore>()({
  id: 'settings.store',
  cardinality: 'single',
  description: 'Per-environment settings (email, sms, auth and ai providers) set by tenant admins at /api/v1/settings/:namespace; secrets encrypted at rest.',
});
