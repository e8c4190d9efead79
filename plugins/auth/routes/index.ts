import { definePlugin } from '../../../kernel/definePlugin.ts';
import { addAdminRoutes } from './adminRoutes.ts';
import { addKeyRoutes } from './keyRoutes.ts';
import { addOAuthRoutes } from './oauthRoutes.ts';
import { addSessionRoutes } from './sessionRoutes.ts';
import { addSignInDiscoveryRoutes } from './signInDiscoveryRoutes.ts';

/**
 * The HTTP face of identity: sign-in and sign-out, the auth engine's routes, API keys and user
 * administration. A plugin of its own because the http plugin uses `auth.session` from `auth`,
 * which therefore cannot itself wait for `http.routes`.
 */
export default definePlugin({
  name: 'auth-routes',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['http.routes', 'auth.identity', 'runtime.info'],
  // Sign-ins, sign-outs, password and second-factor changes, keys and users go to the audit trail.
  optional: ['audit.record'],
  register(ctx) {
    const routes = ctx.resolve('http.routes');
    const identity = ctx.resolve('auth.identity');
    const audit = ctx.resolve('audit.record');
    addSessionRoutes(routes, identity, audit);
    addKeyRoutes(routes, identity, audit);
    addAdminRoutes(routes, identity, audit);
    addOAuthRoutes(routes, identity);
    addSignInDiscoveryRoutes(routes, identity, ctx.resolve('runtime.info'));
  },
});
