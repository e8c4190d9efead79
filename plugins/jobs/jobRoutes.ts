import { JOB_STATES, type JobsQueue } from '../../capabilities/jobsQueue.ts';
import type { HttpRoutes } from '../../capabilities/httpRoutes.ts';
import { codedError } from '../../kernel/errors.ts';
import { requireAdmin } from '../http/requireAdmin.ts';

const tags = ['jobs'];
const nullableString = { type: ['string', 'null'] };
const jobId = { type: 'string', minLength: 1, maxLength: 100 };
export const jobInfoSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' }, name: { type: 'string' }, state: { type: 'string', enum: [...JOB_STATES] },
    attempts: { type: 'integer' }, maxAttempts: { type: 'integer' }, priority: { type: 'integer' },
    runAt: { type: 'string' }, startedAt: nullableString, finishedAt: nullableString, lastError: nullableString,
    repeatKey: nullableString, createdAt: { type: 'string' }, environmentId: { type: 'string' },
  },
  required: ['id', 'name', 'state', 'attempts', 'maxAttempts', 'runAt', 'startedAt', 'finishedAt', 'lastError', 'createdAt'],
};

/**
 * The queue of the request's environment for its operators (admins only), as `osr jobs` shows it:
 * GET /jobs (backend, counts per name and state, dead letters with their last error),
 * GET /jobs/:id, POST /jobs/:id/retry (a dead job runs again, its attempts reset).
 */
export function addJobRoutes(routes: HttpRoutes, queue: JobsQueue): void {
  routes.add({
    method: 'GET', path: '/jobs', tags,
    summary: 'The job queue (admins): its backend, counts per job name and state, and the dead letters with their last error, newest first',
    errorStatuses: [503],
    schema: {
      querystring: { type: 'object', properties: { deadLimit: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } }, additionalProperties: false },
      response: {
        200: {
          type: 'object',
          properties: {
            backend: { type: 'string', enum: ['embedded', 'bullmq'] },
            counts: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, state: { type: 'string', enum: [...JOB_STATES] }, count: { type: 'integer' } }, required: ['name', 'state', 'count'] } },
            dead: { type: 'array', items: jobInfoSchema },
          },
          required: ['backend', 'counts', 'dead'],
        },
      },
    },
    handler: async (request) => {
      requireAdmin(request.principal, 'the queue holds the work of every user and plugin of the environment');
      const { deadLimit } = request.query as { deadLimit: number };
      const env = request.environmentId;
      const [counts, dead] = await Promise.all([queue.counts(env), queue.dead(env, deadLimit)]);
      return { backend: queue.backend, counts, dead };
    },
  });
  routes.add({
    method: 'GET', path: '/jobs/:id', tags,
    summary: 'A job (admins): its state, attempts, times and last error; never its data',
    errorStatuses: [503],
    schema: { params: { type: 'object', properties: { id: jobId }, required: ['id'] }, response: { 200: jobInfoSchema } },
    handler: async (request) => {
      requireAdmin(request.principal, 'a job is the work of any user or plugin of the environment');
      const { id } = request.params as { id: string };
      const job = await queue.get(id, request.environmentId);
      if (!job) throw notFound(id);
      return job;
    },
  });
  routes.add({
    method: 'POST', path: '/jobs/:id/retry', tags,
    summary: 'Retry a dead job (admins): it is queued again with its attempts reset; a job that is not dead is 409 JOB_NOT_DEAD',
    errorStatuses: [409, 503],
    schema: { params: { type: 'object', properties: { id: jobId }, required: ['id'] }, response: { 200: jobInfoSchema } },
    handler: async (request) => {
      requireAdmin(request.principal, 'a retry runs the work of any user or plugin of the environment again');
      const { id } = request.params as { id: string };
      return queue.retry(id, request.environmentId);
    },
  });
}

function notFound(id: string) {
  return codedError('NOT_FOUND', { what: `Job ${id.slice(0, 100)}` });
}
