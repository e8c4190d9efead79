import { auditSourceOf, type AuditRecord } from '../../capabilities/auditRecord.ts';
import type { DataEngine } from '../../capabilities/dataEngine.ts';
import type { HttpRoutes } from '../../capabilities/httpRoutes.ts';
import type { MetadataRegistry } from '../../capabilities/metadataRegistry.ts';
import { codedError } from '../../kernel/errors.ts';
import type { Logger } from '../../kernel/logger.ts';
import { EXPORT_FORMATS } from './exportFormats.ts';
import { dataContextOf as dataContext } from '../../capabilities/dataEngine.ts';
import { apiObject } from '../../metadata/apiObject.ts';
import { badRequest } from './ioRequest.ts';
import type { Mapping } from './planColumns.ts';
import { csvRows, jsonRows, MAX_IMPORT_ROWS, tableRows, type ImportRow } from './readImportRows.ts';
import { readStreamedImport, STREAMED_IMPORT_TYPES } from './readStreamedImport.ts';
import { runImport, type ImportOptions } from './runImport.ts';
import { startExport, type ExportRequest } from './streamExport.ts';

const objectParams = { type: 'object', properties: { object: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,62}$' } }, required: ['object'] };

const importBody = {
  type: 'object',
  properties: {
    format: { type: 'string', enum: ['csv', 'json'] },
    csv: { type: 'string' },
    rows: { type: 'array', items: { type: 'object' } },
    mapping: { type: 'object', additionalProperties: { type: ['string', 'null'] } },
    dryRun: { type: 'boolean' },
    atomic: { type: 'boolean' },
  },
  required: ['format'],
  additionalProperties: false,
};

/** The options of a text/csv import; a JSON import carries them in its body, a multipart one as form fields. */
const importQuery = {
  type: 'object',
  properties: {
    mapping: { type: 'string', description: 'text/csv only: JSON text of { column: field or null }' },
    dryRun: { type: 'boolean', description: 'text/csv only' },
    atomic: { type: 'boolean', description: 'text/csv only' },
  },
  additionalProperties: false,
};

/** A body the http layer left unread (text/csv, multipart): an async iterable of its bytes. */
const isStreamed = (body: unknown): body is AsyncIterable<Buffer> => typeof body === 'object' && body !== null && Symbol.asyncIterator in body;

// where, orderBy and fields take every form the query accepts; the engine checks them.
const exportBody = {
  type: 'object',
  properties: { format: { type: 'string', enum: [...EXPORT_FORMATS] }, where: {}, orderBy: {}, fields: {} },
  required: ['format'],
  additionalProperties: false,
};

interface ImportBody {
  format: 'csv' | 'json';
  csv?: string;
  rows?: Record<string, unknown>[];
  mapping?: Mapping;
  dryRun?: boolean;
  atomic?: boolean;
}

/** 5,000 rows of a wide CSV or JSON exceed the server's default body limit. */
const IMPORT_BODY_LIMIT = 16 * 1024 * 1024;

/** POST /data/:object/import and /data/:object/export, through the data engine only. */
export function addIoRoutes(routes: HttpRoutes, engine: DataEngine, metadata: MetadataRegistry, log: Logger, audit?: AuditRecord): void {
  routes.add({
    method: 'POST', path: '/data/:object/import', tags: ['data'],
    summary: `Import up to ${MAX_IMPORT_ROWS} rows from CSV (in JSON, as text/csv or as multipart/form-data) or JSON rows: mapping, dryRun, atomic (default true: all rows or none); errors by row`,
    schema: { params: objectParams, querystring: importQuery, body: importBody },
    bodyLimit: IMPORT_BODY_LIMIT,
    streamedBody: STREAMED_IMPORT_TYPES,
    handler: async (request) => {
      const { object } = request.params as { object: string };
      const target = apiObject(metadata, object, 'import');
      if (target.system) throw codedError('SYSTEM_OBJECT_READ_ONLY', { object });
      let rows: ImportRow[];
      let options: ImportOptions;
      if (isStreamed(request.body)) {
        const source = await readStreamedImport(request, target);
        rows = tableRows(target, source.table, source.mapping);
        options = { dryRun: source.dryRun, atomic: source.atomic };
      } else {
        const given = Object.keys(request.query ?? {});
        if (given.length > 0) badRequest(given[0]!, 'of a JSON import goes in the body, not in the query string');
        const body = request.body as ImportBody;
        const mapping = body.mapping ?? {};
        if (body.format === 'csv' && (body.csv === undefined || body.rows !== undefined)) badRequest('csv', 'format csv takes the file as the string csv, and no rows');
        if (body.format === 'json' && (body.rows === undefined || body.csv !== undefined)) badRequest('rows', 'format json takes an array of objects as rows, and no csv');
        rows = body.format === 'csv' ? csvRows(target, body.csv!, mapping) : jsonRows(target, body.rows!, mapping);
        options = { dryRun: body.dryRun ?? false, atomic: body.atomic ?? true };
      }
      const result = await runImport(engine, object, rows, dataContext(request), options, log);
      if (!options.dryRun && options.atomic && result.failed > 0) {
        const first = result.errors[0]!;
        const text = `row ${first.row}: ${first.errors.map((e) => `${e.path || 'row'} ${e.message}`).join('; ')}`;
        throw codedError('IMPORT_REJECTED', { ...result, first: text.length > 300 ? `${text.slice(0, 300)}…` : text });
      }
      return result;
    },
  });

  routes.add({
    method: 'POST', path: '/data/:object/export', tags: ['data'], scope: 'data:read',
    summary: 'Export the records the caller may read as csv, xlsx, pdf or json (streamed); where, orderBy and fields as in the query',
    schema: { params: objectParams, body: exportBody },
    handler: async (request, reply) => {
      const { object } = request.params as { object: string };
      const target = apiObject(metadata, object, 'export');
      const body = request.body as ExportRequest;
      const source = audit ? auditSourceOf(request) : null;
      // Recorded once the last row is sent: object, format and row count (a cut-short export is a failure).
      const onEnd = audit && source
        ? (rows: number, complete: boolean) => audit.record(source, { action: 'data.exported', outcome: complete ? 'success' : 'failure', target: { type: 'object', id: target.name }, after: { object: target.name, format: body.format, rows } })
        : undefined;
      const { stream, contentType, filename } = await startExport(engine, target, body, dataContext(request), log, onEnd);
      reply.header('content-type', contentType).header('content-disposition', `attachment; filename="${filename}"`).header('cache-control', 'no-store');
      return reply.send(stream);
    },
  });
}
