import type { DataEngine, DataRecord } from '../../capabilities/dataEngine.ts';
import { dataContextOf as dataContext } from '../../capabilities/dataEngine.ts';
import type { HttpRoutes } from '../../capabilities/httpRoutes.ts';
import type { MetadataRegistry } from '../../capabilities/metadataRegistry.ts';
import { codedError } from '../../kernel/errors.ts';
import { apiObject } from '../../metadata/apiObject.ts';
import { expectedVersion } from './restContext.ts';
import { checkBatch, checkBulk, MAX_BATCH_OPERATIONS, MAX_BULK_OPERATIONS, operationsOf, runBatch } from './runBatch.ts';

const NAME = { type: 'string', pattern: '^[a-z][a-z0-9_]{0,62}$' };
const objectParams = { type: 'object', properties: { object: NAME }, required: ['object'] };
const body = { type: 'object' };

/** The batch body as documented (OpenAPI); limits and references are checked in runBatch.ts, with messages that name the operation. */
const batchBody = {
  type: 'object',
  required: ['operations'],
  properties: {
    operations: {
      type: 'array',
      description: `1 to ${MAX_BATCH_OPERATIONS} operations, run in order in one transaction.`,
      items: {
        type: 'object',
        required: ['id', 'method', 'object'],
        properties: {
          id: { type: 'string', description: 'Unique in the batch (1 to 64 letters, digits, _ or -); names the operation in results, errors and references.' },
          method: { type: 'string', description: 'POST (create), PATCH (update) or DELETE.' },
          object: { type: 'string', description: 'The object name, as in /data/:object.' },
          recordId: { description: 'PATCH and DELETE: the record id, or {"$ref": "<earlier op id>.<field>"}.' },
          body: { type: 'object', description: 'POST and PATCH: the record or the changes (expectedVersion allowed on PATCH and DELETE); any value may be {"$ref": "<earlier op id>.<field>"}.' },
          expectedVersion: { type: 'integer', description: 'PATCH and DELETE: the version the write expects.' },
        },
      },
    },
  },
};

/**
 * Writes of several records at once, each one through the data engine as its `/data` request:
 * upsert by a unique field, bulk writes on one object, and the atomic batch across objects.
 */
export function addBatchRoutes(routes: HttpRoutes, engine: DataEngine, metadata: MetadataRegistry): void {
  routes.add({
    method: 'PUT', path: '/data/:object/upsert', tags: ['data'],
    summary: 'Create or update the record whose unique field `on` holds the body\'s value; 201 created, 200 updated',
    schema: { params: objectParams, querystring: { type: 'object', properties: { on: { type: 'string', maxLength: 64 } }, additionalProperties: false }, body },
    handler: async (request, reply) => {
      const { object } = request.params as { object: string };
      apiObject(metadata, object, 'upsert');
      const on = (request.query as { on?: string }).on;
      if (on === undefined || on === '') {
        throw codedError('VALIDATION_ERROR', { summary: 'on is required: name the unique field to look the record up by, e.g. ?on=email', errors: [{ path: 'on', message: 'is required' }] });
      }
      const given = request.body;
      if (typeof given !== 'object' || given === null || Array.isArray(given)) {
        throw codedError('VALIDATION_ERROR', { summary: 'the record must be a JSON object', errors: [{ path: 'body', message: 'must be a JSON object' }] });
      }
      const { expectedVersion: fromBody, ...values } = given as DataRecord;
      const version = expectedVersion(request, fromBody);
      const { created, record } = await engine.upsert(object, on, values, version === undefined ? {} : { expectedVersion: version }, dataContext(request));
      reply.code(created ? 201 : 200).header('etag', `"${String(record.version)}"`);
      return record;
    },
  });
  routes.add({
    method: 'POST', path: '/data/:object/bulk', tags: ['data'],
    summary: `Up to ${MAX_BULK_OPERATIONS} creates, updates and deletes of one object in one transaction: all or nothing`,
    schema: { params: objectParams, body },
    handler: async (request) => {
      const { object } = request.params as { object: string };
      apiObject(metadata, object, 'bulk');
      const ops = checkBulk(object, operationsOf(request.body, MAX_BULK_OPERATIONS));
      const results = await runBatch(engine, metadata, dataContext(request), ops);
      return { results: results.map((r, index) => ({ index, status: r.status, body: r.body })) };
    },
  });
  routes.add({
    method: 'POST', path: '/batch', tags: ['data'], scope: 'none',
    summary: `Up to ${MAX_BATCH_OPERATIONS} record writes across objects in one transaction, with {"$ref": "op1.id"} references: all or nothing`,
    schema: { body: batchBody },
    handler: async (request) => {
      const ops = checkBatch(operationsOf(request.body, MAX_BATCH_OPERATIONS));
      return { results: await runBatch(engine, metadata, dataContext(request), ops) };
    },
  });
}
