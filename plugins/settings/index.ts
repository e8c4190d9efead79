import { definePlugin } from '../../kernel/definePlugin.ts';
import { createSettingsService, type SettingsService } from './createSettingsService.ts';
import { settingsOptionsSchema } from './settingsOptions.ts';
import { HOST_REFUSED } from './checkedLookup.ts';
import { settingsConnections } from './settingsConnections.ts';

const services = new WeakMap<object, SettingsService>();

/** The service behind `settings.store`, for the routes plugin of the same folder. */
export const settingsServiceOf = (store: object): SettingsService | undefined => services.get(store);

/**
 * Per-environment settings (docs/settings.md): the `email`, `sms`, `auth` and `ai` namespaces a
 * tenant admin sets at /api/v1/settings/:namespace (the `settings-routes` plugin), kept in a side
 * table of each environment's database with their secrets sealed (AES-256-GCM, a key derived from
 * OS_AUTH_SECRET and the environment id). Provides `settings.store`; a change reaches every
 * process over the events bus.
 */
export default definePlugin({
  name: 'settings',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['secrets.keys', 'runtime.info'],
  // Without the data plugin there is nowhere to keep settings: none are set, and no route is served.
  optional: ['data.database', 'events.bus'],
  provides: ['settings.store'],
  options: settingsOptionsSchema,
  register(ctx) {
    const database = ctx.resolve('data.database');
    // A tenant admin on a shared host may not point the runtime at the operator's own network (docs/settings.md, Hosts chosen in settings).
    const privateHosts = ctx.options.privateHosts ?? (ctx.resolve('runtime.info').production ? 'deny' : 'allow');
    const connections = settingsConnections(privateHosts, ({ host, address, range }) =>
      ctx.log.warn({ host, address, code: HOST_REFUSED }, `a host chosen in settings is, or resolves to, ${range}: not connected (plugins.settings.privateHosts: deny)`));
    if (!database) {
      ctx.provide('settings.store', { read: async () => null, resolveWith: () => undefined, connections });
      return;
    }
    const service = createSettingsService({ database, keys: ctx.resolve('secrets.keys'), bus: ctx.resolve('events.bus'), log: ctx.log, privateHosts });
    const store = { read: service.read, resolveWith: service.resolveWith, connections };
    services.set(store, service);
    ctx.provide('settings.store', store);
  },
});
