import { definePlugin } from '../../../kernel/definePlugin.ts';
import { addAdminRoutes } from './adminRoutes.ts';
import { addKeyRoutes } from './keyRoutes.ts';
import { addOAuthRoutes } from './oauthRoutes.ts';
import { addSessionRoutes } from './sessionRoutes.ts';

/**
 * The HTTP face of identity: sign-in and sign-out, the auth engine's routes, API keys and user
 * administration. A plugin of its own because the http plugin uses `auth.session` from `auth`,
 * which therefore cannot itself wait for `http.routes`.
 */
export default definePlugin({
  name: 'auth-routes',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['http.routes', 'auth.identity'],
  register(ctx) {
    const routes = ctx.resolve('http.routes');
    const identity = ctx.resolve('auth.identity');
    addSessionRoutes(routes, identity);
    addKeyRoutes(routes, identity);
    addAdminRoutes(routes, identity);
    addOAuthRoutes(routes, identity);
  },
});
