/** Pure cores of the OpenAPI builder: JSON Schema to 3.0, paths, operation ids, field schemas. */
import t from 'tap';
import { fieldSchema, objectSchemas } from '../../plugins/openapi/objectSchemas.ts';
import { documentedPath, operationIdOf, pathParams } from '../../plugins/openapi/routePaths.ts';
import { toOpenApiSchema } from '../../plugins/openapi/toOpenApiSchema.ts';
import { resolvedObject } from '../harness/fixtures.ts';

t.test('JSON Schema keywords 3.0 lacks are rewritten or dropped', async (t) => {
  t.same(toOpenApiSchema({ type: ['string', 'null'], maxLength: 3 }), { maxLength: 3, type: 'string', nullable: true }, 'a type list with null: nullable');
  t.same(toOpenApiSchema({ type: ['string', 'integer'] }), { anyOf: [{ type: 'string' }, { type: 'integer' }] }, 'two types: anyOf');
  t.same(toOpenApiSchema({ const: 'x' }), { enum: ['x'] }, 'const: a one-value enum');
  t.same(toOpenApiSchema({ type: 'number', exclusiveMinimum: 0 }), { minimum: 0, exclusiveMinimum: true, type: 'number' }, 'numeric exclusive bound: boolean form');
  t.same(toOpenApiSchema({ $schema: 'x', $id: 'y', type: 'object', patternProperties: { a: {} }, if: {}, then: {}, required: [] }), { type: 'object' }, 'unknown keywords and an empty required dropped');
  t.same(toOpenApiSchema({ type: 'array' }), { type: 'array', items: {} }, 'an array gets items');
  t.same(toOpenApiSchema({ type: 'array', items: [{ type: 'string' }] }), { items: {}, type: 'array' }, 'tuple items: any item');
  t.same(toOpenApiSchema({ examples: [1, 2] }), { example: 1 }, 'examples: the first as example');
  t.same(toOpenApiSchema({ type: 'object', properties: { a: { type: ['integer', 'null'], enum: [1, 2] } }, additionalProperties: { const: 1 } }),
    { type: 'object', properties: { a: { enum: [1, 2, null], type: 'integer', nullable: true } }, additionalProperties: { enum: [1] } }, 'nested, enum gains null');
  t.same(toOpenApiSchema({ $ref: '#/definitions/x' }), {}, 'a reference outside components is dropped');
  t.same(toOpenApiSchema({ $ref: '#/components/schemas/Error', description: 'x' }), { $ref: '#/components/schemas/Error' }, 'a component reference is kept alone');
  t.same(toOpenApiSchema('nope'), {}, 'not a schema: any value');
});

t.test('paths, parameters and operation ids', async (t) => {
  t.equal(documentedPath('/api/v1/data/:object/:id', false), '/data/{object}/{id}', 'relative to the server, braces');
  t.equal(documentedPath('/api/v1', false), '/', 'the API root');
  t.equal(documentedPath('/api/v1/auth/*', false), '/auth/{wildcard}', 'a wildcard');
  t.equal(documentedPath('/.well-known/thing', true), '/.well-known/thing', 'a root route keeps its path');
  t.same(pathParams('/meta/{type}/{section}/{name}'), ['type', 'section', 'name']);
  t.equal(operationIdOf('POST', '/auth/sign-in'), 'postAuthSignIn');
  t.equal(operationIdOf('GET', '/keys/{id}'), 'getKeysById');
  t.equal(operationIdOf('GET', '/'), 'getRoot');
});

t.test('field and object schemas', async (t) => {
  const object = resolvedObject('order_line', {
    sku: { type: 'text', required: true, maxLength: 20 },
    qty: { type: 'integer', min: 1, default: 1 },
    status: { type: 'select', options: ['open', { value: 'shipped', label: 'Shipped!' }] },
    at: { type: 'datetime' },
    total: { type: 'formula', returns: 'number', expression: 'record.qty * 2.0' },
    data: { type: 'json' },
  }, { label: 'Order line', owner: false });
  t.same(fieldSchema(object.fields.qty!, 'record'), { type: 'integer', minimum: 1, title: 'qty', default: 1, nullable: true });
  t.same(fieldSchema(object.fields.status!, 'record').enum, ['open', 'shipped', null], 'option values, null when optional');
  t.same(fieldSchema(object.fields.data!, 'input'), { title: 'data', 'x-maxBytes': 1_000_000 }, 'json: any value, at most its maxBytes (the default)');
  t.equal(fieldSchema(object.fields.total!, 'record').readOnly, true, 'computed: read-only in records');
  const schemas = objectSchemas(object, new Set(['order_line']));
  t.same(Object.keys(schemas), ['order_line', 'order_line.create', 'order_line.update', 'order_line.list']);
  t.equal((schemas.order_line!.properties as Record<string, unknown>).owner_id, undefined, 'no owner_id without an owner');
  t.same(schemas['order_line.create']!.required, ['sku'], 'required without default');
  t.equal((schemas['order_line.create']!.properties as Record<string, unknown>).total, undefined, 'no computed field in the create body');
});
