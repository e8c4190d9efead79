import { definePlugin } from '../../../kernel/definePlugin.ts';
import { settingsServiceOf } from '../index.ts';
import { addSettingsRoutes } from './settingsRoutes.ts';

/**
 * `GET/PUT /api/v1/settings/:namespace`. A plugin of its own: `email.send` reads `settings.store`
 * and `auth` (which the http plugin needs) uses `email.send`, so the store cannot wait for `http.routes`.
 */
export default definePlugin({
  name: 'settings-routes',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['http.routes', 'settings.store'],
  optional: ['audit.record'],
  register(ctx) {
    const service = settingsServiceOf(ctx.resolve('settings.store'));
    if (service) addSettingsRoutes(ctx.resolve('http.routes'), service, ctx.resolve('audit.record'));
  },
});
