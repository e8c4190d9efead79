import { READS_ONLY, type DataDatabase } from '../../capabilities/dataDatabase.ts';
import type { HttpRoutes } from '../../capabilities/httpRoutes.ts';
import { codedError } from '../../kernel/errors.ts';
import { requireAdmin } from '../http/requireAdmin.ts';
import { listDeliveries, type DeliveryCursor } from './deliveryStore.ts';

const nullableString = { type: ['string', 'null'] };

function readCursor(raw: string): DeliveryCursor {
  try {
    const [receivedAt, key] = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as unknown[];
    if (typeof receivedAt === 'string' && typeof key === 'string') return { receivedAt, key };
  } catch {
    // Refused below.
  }
  throw codedError('VALIDATION_ERROR', { summary: 'cursor is not one this route answered', errors: [{ path: 'querystring/cursor', message: 'must be a nextCursor of this route' }] });
}

/** GET /automation/deliveries: the inbound hook deliveries accepted (admins only), newest first, paged. */
export function addDeliveriesRoute(routes: HttpRoutes, database: DataDatabase): void {
  routes.add({
    method: 'GET', path: '/automation/deliveries', tags: ['automation'],
    summary: 'Inbound hook deliveries accepted in the environment (admins), newest first: flow, the sender\'s delivery id, when, the run started',
    schema: {
      querystring: {
        type: 'object',
        properties: { flow: { type: 'string', maxLength: 63 }, limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 }, cursor: { type: 'string', maxLength: 600 } },
        additionalProperties: false,
      },
      response: {
        200: {
          type: 'object',
          properties: {
            items: {
              type: 'array',
              items: {
                type: 'object',
                properties: { flow: { type: 'string' }, deliveryId: nullableString, receivedAt: { type: 'string' }, runId: nullableString },
                required: ['flow', 'deliveryId', 'receivedAt', 'runId'],
              },
            },
            nextCursor: nullableString,
          },
          required: ['items', 'nextCursor'],
        },
      },
    },
    handler: async (request) => {
      requireAdmin(request.principal, 'hook deliveries name the flows other systems start and their runs');
      const query = request.query as { flow?: string; limit: number; cursor?: string };
      const after = query.cursor ? readCursor(query.cursor) : undefined;
      const page = await database.withDatabase(request.environmentId, (db) => listDeliveries(db, { limit: query.limit, ...(query.flow ? { flow: query.flow } : {}), ...(after ? { after } : {}) }), undefined, READS_ONLY);
      return { items: page.items, nextCursor: page.next ? Buffer.from(JSON.stringify([page.next.receivedAt, page.next.key])).toString('base64url') : null };
    },
  });
}
