import { definePlugin } from '../../../kernel/definePlugin.ts';
import { addEmailRoutes } from './emailRoutes.ts';

/**
 * `POST /api/v1/email/send`. A plugin of its own: `auth` uses `email.send`, and the http plugin
 * uses `auth.session`, so the provider of `email.send` cannot wait for `http.routes`.
 */
export default definePlugin({
  name: 'email-routes',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['http.routes'],
  // Optional: with the email plugin disabled there is nothing to serve, and no boot error either.
  optional: ['email.send', 'data.engine', 'metadata.registry'],
  register(ctx) {
    const email = ctx.resolve('email.send');
    if (email) addEmailRoutes(ctx.resolve('http.routes'), email, { engine: ctx.resolve('data.engine'), metadata: ctx.resolve('metadata.registry') });
  },
});
