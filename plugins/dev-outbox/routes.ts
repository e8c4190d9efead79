import { outboxOutsideProduction } from '../../capabilities/devOutbox.ts';
import { definePlugin } from '../../kernel/definePlugin.ts';
import { addOutboxRoute } from './outboxRoute.ts';

/**
 * `GET /api/v1/dev/outbox`, outside production only (in production the route does not exist). A
 * plugin of its own: the mail and SMS providers use `dev.outbox` before `http.routes` exists.
 */
export default definePlugin({
  name: 'dev-outbox-routes',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['http.routes', 'runtime.info'],
  optional: ['dev.outbox'],
  register(ctx) {
    const outbox = outboxOutsideProduction(ctx.resolve('runtime.info').production, ctx.resolve('dev.outbox'));
    if (outbox) addOutboxRoute(ctx.resolve('http.routes'), outbox);
  },
});
