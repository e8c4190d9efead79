import type { DevOutbox } from '../../capabilities/devOutbox.ts';
import type { HttpRoutes } from '../../capabilities/httpRoutes.ts';

/** Permission key of `GET /dev/outbox` (admins hold every permission). */
export const DEV_OUTBOX_PERMISSION = 'dev:outbox';

const message = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    channel: { type: 'string', enum: ['email', 'sms'] },
    to: { type: 'string' },
    subject: { type: ['string', 'null'] },
    text: { type: 'string' },
    links: { type: 'array', items: { type: 'string' } },
    sentAt: { type: 'string' },
  },
  required: ['id', 'channel', 'to', 'subject', 'text', 'links', 'sentAt'],
};

export function addOutboxRoute(routes: HttpRoutes, outbox: DevOutbox): void {
  routes.add({
    method: 'GET', path: '/dev/outbox', permission: DEV_OUTBOX_PERMISSION, tags: ['dev'],
    summary: 'Outside production: the emails and text messages the log providers kept instead of sending (last 200 of the environment, newest first, codes and links included)',
    schema: { response: { 200: { type: 'object', properties: { items: { type: 'array', items: message } }, required: ['items'] } } },
    handler: (request) => ({ items: outbox.list(request.environmentId) }),
  });
}
