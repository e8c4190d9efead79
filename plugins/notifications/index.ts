import { z } from 'zod';
import { definePlugin, perConsumer } from '../../kernel/definePlugin.ts';
import { createNotificationService, NOTIFICATION_OBJECT } from './createNotificationService.ts';
import { addNotificationRoutes } from './notificationRoutes.ts';

export const RETENTION_DAYS = 90;

const optionsSchema = z.strictObject({
  /** Site origin put before relative links in email and SMS, e.g. `https://app.example.com`. */
  publicUrl: z.string().url().regex(/^https?:\/\/[^/]+$/, 'must be an origin without a path, such as https://app.example.com').optional(),
});

/**
 * Notifications: `notifications.send` (in-app rows in sys_notification, email through `email.send`,
 * SMS through `sms.send`), and the caller's inbox under /api/v1/notifications. The rows live in an
 * engine-owned object of the data plugin's system app, owner-private and read-only through /data.
 */
export default definePlugin({
  name: 'notifications',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['data.engine', 'data.database', 'http.routes', 'runtime.info'],
  optional: ['auth.identity', 'email.send', 'sms.send'],
  provides: ['notifications.send'],
  options: optionsSchema,
  register(ctx) {
    const info = ctx.resolve('runtime.info');
    const engine = ctx.resolve('data.engine');
    const identity = ctx.resolve('auth.identity');
    const service = createNotificationService({
      engine,
      environments: () => info.environments.map((env) => env.id),
      contacts: identity ? (environmentId, userIds) => identity.contactsOf(environmentId, userIds) : null,
      email: () => ctx.resolve('email.send'),
      sms: () => ctx.resolve('sms.send'),
      publicUrl: ctx.options.publicUrl ?? null,
      log: ctx.log,
    });
    // Each consumer sends under its own name: the rows record which plugin sent them.
    ctx.provide('notifications.send', perConsumer((consumer) => ({ send: (request) => service.send(request, consumer.name) })));
    addNotificationRoutes(ctx.resolve('http.routes'), engine, ctx.resolve('data.database'));
    ctx.retention({
      name: 'notifications.history',
      object: NOTIFICATION_OBJECT,
      description: 'In-app notifications, read or not, are deleted once older than the window.',
      // Another window: lifecycle.retention_overrides["notifications.history"].
      keepDays: RETENTION_DAYS,
      action: 'delete',
      ageField: 'created_at',
    });
  },
});
