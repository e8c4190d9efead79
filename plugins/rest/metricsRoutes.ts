import type { DataIndexAdvice } from '../../capabilities/dataIndexAdvice.ts';
import type { HttpRoutes } from '../../capabilities/httpRoutes.ts';
import { codedError } from '../../kernel/errors.ts';

const strings = { type: 'array', items: { type: 'string' } };

const response = {
  200: {
    type: 'object',
    properties: {
      slowQueryMs: { type: 'integer' },
      items: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            object: { type: 'string' },
            columns: strings,
            sql: { type: 'string' },
            shapes: { type: 'array', items: { type: 'object', properties: { equality: strings, range: strings, sort: strings }, required: ['equality', 'range', 'sort'] } },
            runs: { type: 'integer' },
            totalMs: { type: 'number' },
            maxMs: { type: 'number' },
            lastAt: { type: 'string', format: 'date-time' },
          },
          required: ['object', 'columns', 'sql', 'shapes', 'runs', 'totalMs', 'maxMs', 'lastAt'],
        },
      },
    },
    required: ['slowQueryMs', 'items'],
  },
};

/** GET /metrics/index-advice: the composite indexes that would serve the environment's slow query shapes; admins only. */
export function addMetricsRoutes(routes: HttpRoutes, advice: DataIndexAdvice): void {
  routes.add({
    method: 'GET', path: '/metrics/index-advice', tags: ['metrics'],
    summary: 'Index advice (admins): the composite index that would serve each slow query shape recorded since start (plugins.data.slowQueryMs)',
    schema: { querystring: { type: 'object', properties: {}, additionalProperties: false }, response },
    handler: async (request) => {
      const principal = request.principal;
      if (!principal) throw codedError('UNAUTHENTICATED');
      if (!principal.isAdmin) throw codedError('PERMISSION_DENIED', { permission: 'admin', reason: 'index advice names the tables, columns and query shapes of every object' });
      return { slowQueryMs: advice.slowQueryMs, items: await advice.advice(request.environmentId) };
    },
  });
}
