import { outboxOutsideProduction, type DevOutbox } from '../../capabilities/devOutbox.ts';
import { definePlugin } from '../../kernel/definePlugin.ts';
import { createDevOutbox } from './createDevOutbox.ts';

/**
 * The development outbox: outside production the email and SMS log providers keep what they did
 * not deliver here (the last 200 per environment), read by admins at `GET /api/v1/dev/outbox`
 * (`dev-outbox-routes`). In production it keeps nothing. See docs/dev-outbox.md.
 */
export default definePlugin({
  name: 'dev-outbox',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['runtime.info'],
  provides: ['dev.outbox'],
  register(ctx) {
    const info = ctx.resolve('runtime.info');
    // Production keeps nothing: codes and links stay with their recipients.
    const keepsNothing: DevOutbox = { keep() {}, list: () => [] };
    ctx.provide('dev.outbox', outboxOutsideProduction(info.production, createDevOutbox(info.defaultEnvironment)) ?? keepsNothing);
  },
});
