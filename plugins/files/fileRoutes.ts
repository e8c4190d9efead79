import type { FastifyRequest } from 'fastify';
import type { AccessGrants } from '../../capabilities/accessGrants.ts';
import type { DataContext, DataEngine, DataRecord } from '../../capabilities/dataEngine.ts';
import type { HttpRoutes } from '../../capabilities/httpRoutes.ts';
import type { MetadataRegistry } from '../../capabilities/metadataRegistry.ts';
import { codedError } from '../../kernel/errors.ts';
import type { ResolvedObject } from '../../metadata/types.ts';
import { author, readableRecord, systemCtx } from '../../capabilities/recordRouteAccess.ts';
import { contentDisposition, declaredType, safeFileName, servedType, typeAllowed } from './fileNames.ts';
import { type FileStore, MissingBytes } from './fileStore.ts';
import { boundaryOf, parseMultipart } from './parseMultipart.ts';
import { storeFilePart, type StoredBytes } from './storeFilePart.ts';

export const FILE_OBJECT = 'sys_file';
export const DEFAULT_PAGE = 20;
export const MAX_PAGE = 100;
/** Room for the multipart framing around the file's bytes. */
const FRAMING = 64 * 1024;

export interface FileOptions {
  maxBytes: number;
  allowedTypes?: readonly string[];
}

export interface FileDeps {
  engine: DataEngine;
  metadata: MetadataRegistry;
  grants: AccessGrants | undefined;
  store: FileStore;
  options: FileOptions;
}

const NAME = { type: 'string', pattern: '^[a-z][a-z0-9_]{0,62}$' };
const ID = { type: 'string', minLength: 1, maxLength: 64 };
const recordParams = { type: 'object', properties: { object: NAME, id: ID }, required: ['object', 'id'] };
const fileParams = { type: 'object', properties: { object: NAME, id: ID, fileId: ID }, required: ['object', 'id', 'fileId'] };

const file = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    contentType: { type: 'string' },
    size: { type: 'integer' },
    sha256: { type: 'string' },
    uploadedBy: { type: ['string', 'null'] },
    createdAt: { type: 'string' },
  },
  required: ['id', 'name', 'contentType', 'size', 'sha256', 'uploadedBy', 'createdAt'],
};

function view(row: DataRecord) {
  return {
    id: String(row.id),
    name: String(row.name),
    contentType: String(row.content_type),
    size: Number(row.size),
    sha256: String(row.sha256),
    uploadedBy: (row.owner_id as string | null) ?? null,
    createdAt: String(row.created_at),
  };
}

/** Engine-owned objects have no files, whatever their flag says. */
function filesOn(object: ResolvedObject): void {
  if (!object.enable.files || object.system) throw codedError('FILES_DISABLED', { object: object.name });
}

const isStream = (body: unknown): body is AsyncIterable<Buffer> => typeof body === 'object' && body !== null && Symbol.asyncIterator in body;

/**
 * Files of records: list, upload (multipart/form-data, one part named `file`), download and delete
 * under /data/:object/:id/files. Reading the record as the caller comes first (hidden: 404); upload
 * and delete also need edit access to it. Rows in the engine-owned sys_file; bytes in the store
 * under a random key, never under a name the client chose.
 */
export function addFileRoutes(routes: HttpRoutes, deps: FileDeps): void {
  const { engine, metadata, store, options } = deps;
  const readable = (request: FastifyRequest, operation: 'get' | 'update') => readableRecord(request, engine, metadata, operation, filesOn);

  /** Edit access to the record (admins and calls without a principal have it), as the access explanation decides it. */
  async function editable(request: FastifyRequest): Promise<{ object: ResolvedObject; id: string; ctx: DataContext }> {
    const found = await readable(request, 'update');
    const principal = found.ctx.principal;
    if (principal && !principal.isAdmin && deps.grants) {
      const explained = await deps.grants.explain(found.ctx.environmentId, principal.userId, found.object.name, found.id);
      if (!explained.edit.allowed) throw codedError('PERMISSION_DENIED', { permission: `${found.object.name}:edit`, subjectId: principal.userId, object: found.object.name, id: found.id });
    }
    return found;
  }

  async function fileOf(ctx: DataContext, object: ResolvedObject, id: string, fileId: string): Promise<DataRecord> {
    const found = (await engine.query(FILE_OBJECT, { where: { id: { $eq: fileId }, object: { $eq: object.name }, record_id: { $eq: id } }, limit: 1 }, systemCtx(ctx), { total: false })).items[0];
    if (!found) throw codedError('NOT_FOUND', { what: `File '${fileId.slice(0, 64)}'` });
    return found;
  }

  routes.add({
    method: 'GET', path: '/data/:object/:id/files', tags: ['data'],
    summary: `Files of a record, newest first; limit (1-${MAX_PAGE}), cursor`,
    errorStatuses: [403],
    schema: {
      params: recordParams,
      querystring: { type: 'object', properties: { limit: { type: 'integer', minimum: 1, maximum: MAX_PAGE, default: DEFAULT_PAGE }, cursor: { type: 'string', maxLength: 4096 } }, additionalProperties: false },
      response: { 200: { type: 'object', properties: { items: { type: 'array', items: file }, total: { type: 'integer' }, nextCursor: { type: ['string', 'null'] } }, required: ['items'] } },
    },
    handler: async (request) => {
      const { object, id, ctx } = await readable(request, 'get');
      const { limit, cursor } = request.query as { limit: number; cursor?: string };
      const result = await engine.query(FILE_OBJECT, {
        where: { object: { $eq: object.name }, record_id: { $eq: id } },
        orderBy: [{ field: 'created_at', order: 'desc' }],
        limit,
        ...(cursor ? { cursor } : {}),
      }, systemCtx(ctx));
      return { items: result.items.map(view), ...(result.total !== undefined ? { total: result.total } : {}), nextCursor: result.nextCursor ?? null };
    },
  });

  routes.add({
    method: 'POST', path: '/data/:object/:id/files', tags: ['data'],
    summary: `Upload a file to a record (edit access): multipart/form-data with one part named file, at most ${options.maxBytes} bytes; 201 with the file`,
    successStatus: 201,
    errorStatuses: [403, 413, 415],
    streamedBody: ['multipart/form-data'],
    bodyLimit: options.maxBytes + FRAMING,
    schema: { params: recordParams, response: { 201: file } },
    handler: async (request, reply) => {
      const principal = author(request);
      const { object, id, ctx } = await editable(request);
      const boundary = boundaryOf(request.headers['content-type']);
      if (!boundary || !isStream(request.body)) {
        throw codedError('VALIDATION_ERROR', { summary: 'send the file as multipart/form-data with a part named file', errors: [{ path: 'body', message: 'must be multipart/form-data' }] });
      }
      let stored: (StoredBytes & { name: string; contentType: string }) | undefined;
      try {
        // Parts other than the first file part are skipped unread; the file's bytes stream into the store.
        for await (const part of parseMultipart(request.body, boundary)) {
          if (stored || part.name !== 'file' || part.filename === undefined) continue;
          const contentType = declaredType(part.contentType);
          if (!typeAllowed(contentType, options.allowedTypes)) {
            throw codedError('FILE_TYPE_NOT_ALLOWED', { contentType, allowed: (options.allowedTypes ?? []).join(', ') });
          }
          const bytes = await storeFilePart(store, ctx.environmentId, part.data, options.maxBytes);
          stored = { ...bytes, name: safeFileName(part.filename), contentType };
        }
      } catch (error) {
        // A form broken after its file part: the stored bytes go too.
        if (stored) await store.remove(ctx.environmentId, stored.key);
        throw error;
      }
      if (!stored) throw codedError('VALIDATION_ERROR', { summary: 'the form has no file part: name it file', errors: [{ path: 'file', message: 'is required: a part named file with a filename' }] });
      try {
        const row = await engine.create(FILE_OBJECT, {
          object: object.name, record_id: id, name: stored.name, content_type: stored.contentType,
          size: stored.size, sha256: stored.sha256, storage_key: stored.key, owner_id: principal.userId,
        }, systemCtx(ctx));
        reply.code(201);
        return view(row);
      } catch (error) {
        await store.remove(ctx.environmentId, stored.key);
        throw error;
      }
    },
  });

  routes.add({
    method: 'GET', path: '/data/:object/:id/files/:fileId', tags: ['data'],
    summary: 'Download a file of a record (read access): its bytes as an attachment, nosniff',
    errorStatuses: [403],
    schema: { params: fileParams },
    handler: async (request, reply) => {
      const { object, id, ctx } = await readable(request, 'get');
      const { fileId } = request.params as { fileId: string };
      const row = await fileOf(ctx, object, id, fileId);
      const bytes = await store.open(ctx.environmentId, String(row.storage_key)).catch((error: unknown) => {
        // Bytes gone are a 404; a store that fails (unreachable, refused credentials) is the server's error, logged.
        throw error instanceof MissingBytes ? codedError('NOT_FOUND', { what: `The bytes of file '${String(row.id)}'` }) : error;
      });
      reply.headers({
        'content-type': servedType(String(row.content_type)),
        'content-length': String(row.size),
        'content-disposition': contentDisposition(String(row.name)),
        'x-content-type-options': 'nosniff',
        'content-security-policy': "default-src 'none'; sandbox",
        'cache-control': 'private, no-store',
      });
      return reply.send(bytes);
    },
  });

  routes.add({
    method: 'DELETE', path: '/data/:object/:id/files/:fileId', tags: ['data'],
    summary: 'Delete a file of a record (edit access); 204',
    successStatus: 204,
    errorStatuses: [403],
    schema: { params: fileParams },
    handler: async (request, reply) => {
      author(request);
      const { object, id, ctx } = await editable(request);
      const { fileId } = request.params as { fileId: string };
      const row = await fileOf(ctx, object, id, fileId);
      await engine.delete(FILE_OBJECT, String(row.id), {}, systemCtx(ctx));
      await store.remove(ctx.environmentId, String(row.storage_key));
      reply.code(204);
      return null;
    },
  });
}
