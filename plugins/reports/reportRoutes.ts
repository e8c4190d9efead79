import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../../capabilities/authSession.ts';
import { dataContextOf } from '../../capabilities/dataEngine.ts';
import type { DataEngine } from '../../capabilities/dataEngine.ts';
import type { HttpRoutes } from '../../capabilities/httpRoutes.ts';
import type { IoExport } from '../../capabilities/ioExport.ts';
import type { MetadataRegistry } from '../../capabilities/metadataRegistry.ts';
import { codedError } from '../../kernel/errors.ts';
import type { ReportDelivery } from './reportDelivery.ts';
import { createReportSchema, DELIVERY_FORMATS, MAX_RECIPIENTS, parseBody, patchReportSchema, scheduleSchema } from './reportInput.ts';
import { canEdit, type ReportStore, type StoredReport } from './reportStore.ts';
import { runQuery, type QueryRun } from './runQuery.ts';

export const DEFAULT_PAGE = 50;
export const MAX_PAGE = 200;

const idParams = { type: 'object', properties: { id: { type: 'string', pattern: '^[A-Za-z0-9_:-][A-Za-z0-9._:-]{0,63}$' } }, required: ['id'] };
const querySchema = {
  type: 'object',
  description: 'The body of POST /data/:object/query plus `object` (where, fields or select, orderBy, limit, groupBy, aggregations, having, distinct, joins, expand), or a use of a declared dataset: { dataset, dimensions?, measures?, where?, orderBy?, limit? } (docs/datasets.md)',
  properties: { object: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,62}$' }, dataset: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,62}$' } },
};
const createBody = {
  type: 'object',
  properties: { name: { type: 'string', minLength: 1, maxLength: 200 }, description: { type: 'string', maxLength: 2000 }, query: querySchema, shared: { type: 'boolean' } },
  required: ['name', 'query'],
  additionalProperties: false,
};
const patchBody = {
  type: 'object',
  properties: { name: { type: 'string', minLength: 1, maxLength: 200 }, description: { type: ['string', 'null'], maxLength: 2000 }, query: querySchema, shared: { type: 'boolean' } },
  additionalProperties: false,
};
const scheduleBody = {
  type: 'object',
  properties: {
    cron: { type: 'string', description: '5 fields: minute hour day-of-month month day-of-week, on the wall clock of timezone' },
    timezone: { type: 'string', description: 'IANA zone, default UTC' },
    recipients: { type: 'array', items: { type: 'string', format: 'email' }, minItems: 1, maxItems: MAX_RECIPIENTS },
    format: { type: 'string', enum: [...DELIVERY_FORMATS], description: 'default csv' },
  },
  required: ['cron', 'recipients'],
  additionalProperties: false,
};
const listQuery = {
  type: 'object',
  properties: { limit: { type: 'integer', minimum: 1, maximum: MAX_PAGE }, cursor: { type: 'string', maxLength: 2000 } },
  additionalProperties: false,
};
const runQueryString = {
  type: 'object',
  properties: { format: { type: 'string', enum: [...DELIVERY_FORMATS], description: 'answer a file instead of JSON' } },
  additionalProperties: false,
};

/** The version an If-Match header expects (`3`, `"3"`, `W/"3"`); a stale one is 409 CONCURRENT_UPDATE. */
function ifMatch(request: FastifyRequest): number | undefined {
  const header = request.headers['if-match'];
  if (typeof header !== 'string' || header.trim() === '' || header.trim() === '*') return undefined;
  const m = /^(?:W\/)?"?(\d{1,15})"?$/.exec(header.trim());
  if (!m) throw codedError('VALIDATION_ERROR', { summary: 'If-Match must be a report version such as "3"', errors: [{ path: 'headers/if-match', message: 'must be a report version' }] });
  return Number(m[1]);
}

/** The caller; reports belong to users, never to anonymous requests (even with requireAuth off). */
export function callerOf(request: FastifyRequest): Principal {
  if (!request.principal || request.principal.kind === 'system') throw codedError('UNAUTHENTICATED');
  return request.principal;
}

/** A report as the API shows it; its schedule (recipients) and delivery state to its owner and admins only. */
function view(report: StoredReport, caller: Principal) {
  const mine = canEdit(report, caller);
  return {
    id: report.id,
    name: report.name,
    description: report.description,
    query: report.query,
    shared: report.shared,
    owner: report.ownerId,
    ...(mine ? { schedule: report.schedule, lastDelivery: { at: report.lastDeliveryAt, error: report.lastDeliveryError } } : {}),
    createdAt: report.createdAt,
    updatedAt: report.updatedAt,
    version: report.version,
  };
}

/** The JSON answer of a run, or the file in `format` through the data export's writers. */
async function answer(run: QueryRun, name: string, format: string | undefined, files: IoExport, reply: FastifyReply) {
  if (format === undefined) return { items: run.items, columns: run.columns, truncated: run.truncated };
  const stamp = new Date().toISOString().slice(0, 16).replace('T', ' ');
  const file = await files.render(format, run.columns, run.items, { label: name, title: `${name} (${stamp} UTC)` });
  const base = name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 80) || 'report';
  reply.header('content-type', file.contentType).header('content-disposition', `attachment; filename="${base}-${stamp.slice(0, 10)}.${file.extension}"`).header('cache-control', 'no-store');
  return reply.send(file.body);
}

export function addReportRoutes(routes: HttpRoutes, deps: { engine: DataEngine; metadata: MetadataRegistry; store: ReportStore; delivery: ReportDelivery; files: IoExport; canSchedule: () => boolean }): void {
  const { engine, metadata, store, delivery, files } = deps;
  /** Validates a query exactly as POST /data/:object/query would for this caller: a field it may not read is refused. */
  const check = (request: FastifyRequest, query: Record<string, unknown>) => runQuery(engine, metadata, query, dataContextOf(request));
  const editable = async (request: FastifyRequest, id: string) => {
    const caller = callerOf(request);
    const report = await store.readable(request.environmentId, id, caller);
    if (!canEdit(report, caller)) throw codedError('PERMISSION_DENIED', { permission: 'ownership of the report (or admin)', report: id });
    return { caller, report };
  };

  routes.add({
    method: 'GET', path: '/reports', tags: ['reports'],
    summary: `Reports the caller may run: its own and the shared ones (admins: all), by name; limit (1-${MAX_PAGE}, default ${DEFAULT_PAGE}), cursor`,
    schema: { querystring: listQuery },
    handler: async (request) => {
      const caller = callerOf(request);
      const q = request.query as { limit?: number; cursor?: string };
      const page = await store.list(request.environmentId, caller, { limit: q.limit ?? DEFAULT_PAGE, ...(q.cursor ? { cursor: q.cursor } : {}) });
      return { items: page.items.map((r) => view(r, caller)), nextCursor: page.nextCursor };
    },
  });

  routes.add({
    method: 'POST', path: '/reports', tags: ['reports'],
    summary: 'Save a report: name, description, query ({ object, ...the body of POST /data/:object/query }, or a dataset use { dataset, dimensions?, measures?, where?, orderBy?, limit? }), shared; the query is validated as the caller',
    schema: { body: createBody },
    successStatus: 201,
    // 404 for an object the caller cannot address, 405 for one whose apiMethods leave the read out, 403 for a hidden field.
    errorStatuses: [403, 404, 405],
    handler: async (request, reply) => {
      const caller = callerOf(request);
      const body = parseBody(createReportSchema, request.body);
      const run = await check(request, body.query);
      const report = await store.create(request.environmentId, caller.userId, { ...body, object: run.object.name });
      reply.code(201);
      return view(report, caller);
    },
  });

  routes.add({
    method: 'GET', path: '/reports/:id', tags: ['reports'],
    summary: 'One report (404 when the caller may not read it); its schedule to its owner and admins',
    schema: { params: idParams },
    handler: async (request) => {
      const caller = callerOf(request);
      return view(await store.readable(request.environmentId, (request.params as { id: string }).id, caller), caller);
    },
  });

  routes.add({
    method: 'PATCH', path: '/reports/:id', tags: ['reports'],
    summary: 'Change a report (owner or admin): name, description, query (validated as the caller), shared; If-Match: 409 CONCURRENT_UPDATE on a stale version',
    schema: { params: idParams, body: patchBody },
    errorStatuses: [403, 404, 405, 409],
    handler: async (request) => {
      const { id } = request.params as { id: string };
      const { caller } = await editable(request, id);
      const patch = parseBody(patchReportSchema, request.body);
      const checked = patch.query ? await check(request, patch.query) : null;
      const values: Record<string, unknown> = {};
      if (patch.name !== undefined) values.name = patch.name;
      if (patch.description !== undefined) values.description = patch.description;
      if (patch.shared !== undefined) values.shared = patch.shared;
      if (patch.query !== undefined) Object.assign(values, { query: patch.query, object: checked!.object.name });
      const version = ifMatch(request);
      if (Object.keys(values).length === 0) return view((await store.readable(request.environmentId, id, caller)), caller);
      return view(await store.update(request.environmentId, id, values, version), caller);
    },
  });

  routes.add({
    method: 'DELETE', path: '/reports/:id', tags: ['reports'],
    summary: 'Delete a report and its schedule (owner or admin); 204',
    schema: { params: idParams },
    successStatus: 204,
    errorStatuses: [403],
    handler: async (request, reply) => {
      const { id } = request.params as { id: string };
      const { report } = await editable(request, id);
      if (report.schedule) await delivery.unschedule(request.environmentId, id);
      await store.remove(request.environmentId, id);
      reply.code(204);
      return null;
    },
  });

  routes.add({
    method: 'POST', path: '/reports/:id/run', tags: ['reports'], scope: 'data:read',
    summary: 'Run a report as the caller (its row and field security): { items, columns, truncated }, or a file with ?format=csv|xlsx|pdf|json',
    schema: { params: idParams, querystring: runQueryString },
    errorStatuses: [403, 404, 405],
    handler: async (request, reply) => {
      const caller = callerOf(request);
      const report = await store.readable(request.environmentId, (request.params as { id: string }).id, caller);
      const run = await runQuery(engine, metadata, report.query, dataContextOf(request));
      return answer(run, report.name, (request.query as { format?: string }).format, files, reply);
    },
  });

  routes.add({
    method: 'POST', path: '/reports/:id/schedule', tags: ['reports'],
    summary: `Schedule e-mail delivery (owner only): { cron, timezone, recipients (at most ${MAX_RECIPIENTS}), format }; each run uses the owner's access at that time`,
    schema: { params: idParams, body: scheduleBody },
    errorStatuses: [403, 503],
    handler: async (request) => {
      const { id } = request.params as { id: string };
      const caller = callerOf(request);
      const report = await store.readable(request.environmentId, id, caller);
      if (report.ownerId !== caller.userId) throw codedError('PERMISSION_DENIED', { permission: 'ownership of the report', report: id });
      const schedule = parseBody(scheduleSchema, request.body);
      if (!deps.canSchedule()) throw codedError('SERVICE_OFF', { service: 'Report delivery', reason: 'delivery needs email.send and auth.identity (the email and auth plugins)', fix: 'enable the email and auth plugins' });
      const updated = await store.update(request.environmentId, id, { schedule, last_delivery_error: null });
      await delivery.schedule(request.environmentId, updated, schedule);
      return view(updated, caller);
    },
  });

  routes.add({
    method: 'DELETE', path: '/reports/:id/schedule', tags: ['reports'],
    summary: 'Stop the scheduled delivery of a report (owner or admin); 204',
    schema: { params: idParams },
    successStatus: 204,
    errorStatuses: [403],
    handler: async (request, reply) => {
      const { id } = request.params as { id: string };
      await editable(request, id);
      await delivery.unschedule(request.environmentId, id);
      await store.update(request.environmentId, id, { schedule: null });
      reply.code(204);
      return null;
    },
  });
}

