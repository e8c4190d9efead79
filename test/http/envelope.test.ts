/** Every non-2xx answer is the error envelope; internal errors leak nothing; request ids. */
import t from 'tap';
import pino from 'pino';
import { codedError } from '../../kernel/index.ts';
import { boot, routesPlugin, runScenarios, type Scenario } from './fixtures.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const json = { 'content-type': 'application/json' };

const probe = routesPlugin('probe', [
  {
    method: 'POST', path: '/echo', public: true, summary: 'Echo a body with one integer',
    schema: { body: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } }, additionalProperties: false } },
    handler: (request) => request.body,
  },
  {
    method: 'GET', path: '/items/:id', public: true, summary: 'An item by integer id',
    schema: { params: { type: 'object', properties: { id: { type: 'integer' } } } },
    handler: (request) => request.params,
  },
  { method: 'GET', path: '/boom', public: true, summary: 'Fails', handler: () => { throw new Error('db password is hunter2'); } },
  { method: 'GET', path: '/gone', public: true, summary: 'Not found', handler: () => { throw codedError('NOT_FOUND', { what: 'Invoice 42' }); } },
]);

const logged: string[] = [];
const logger = pino({ level: 'error' }, { write: (line: string) => void logged.push(line) });
const rt = await boot([probe], { server: { bodyLimit: 256 } }, logger);
t.teardown(() => rt.close());

const scenarios: Scenario[] = [
  {
    name: 'unknown route: 404 ROUTE_NOT_FOUND naming method and path, without the query string',
    request: { method: 'GET', url: '/api/v1/nope?token=abc123' },
    status: 404, code: 'ROUTE_NOT_FOUND',
    expect: { error: { message: 'No route GET /api/v1/nope. GET /api/v1 lists the routes.', details: { method: 'GET', path: '/api/v1/nope' } } },
    absent: ['abc123'],
  },
  {
    name: 'a method the path does not serve: 405 METHOD_NOT_ALLOWED with an Allow header',
    request: { method: 'DELETE', url: '/api/v1/health' },
    status: 405, code: 'METHOD_NOT_ALLOWED', headers: { allow: 'GET, HEAD' },
    expect: { error: { message: 'Method DELETE is not allowed on /api/v1/health; it serves GET, HEAD.', details: { method: 'DELETE', path: '/api/v1/health', allow: ['GET', 'HEAD'] } } },
  },
  {
    name: 'a path with parameters, with a trailing slash and below an environment prefix: 405 listing its methods',
    request: { method: 'PUT', url: '/api/v1/environments/default/items/7/?secret=abc123' },
    status: 405, code: 'METHOD_NOT_ALLOWED', headers: { allow: 'GET, HEAD' },
    expect: { error: { details: { method: 'PUT', path: '/api/v1/environments/default/items/7/', allow: ['GET', 'HEAD'] } } },
    absent: ['abc123'],
  },
  {
    name: 'a path one segment longer than a route is still unknown: 404',
    request: { method: 'PUT', url: '/api/v1/items/7/more' },
    status: 404, code: 'ROUTE_NOT_FOUND',
  },
  {
    name: 'an unknown path is 404 before its body is parsed (malformed JSON says nothing of a missing route)',
    request: { method: 'POST', url: '/api/v1/nope', headers: json, payload: '{"n": 1,' },
    status: 404, code: 'ROUTE_NOT_FOUND', expect: { error: { details: { method: 'POST', path: '/api/v1/nope' } } },
  },
  {
    name: 'a URL with a broken percent-encoding: 400 MALFORMED_REQUEST, the URL not repeated',
    request: { method: 'GET', url: '/api/v1/items/%zz-abc123' },
    status: 400, code: 'MALFORMED_REQUEST', absent: ['abc123', 'FST_ERR'],
  },
  {
    name: 'a path parameter over 200 characters: 414 URI_TOO_LONG',
    request: { method: 'GET', url: `/api/v1/items/${'9'.repeat(201)}`, headers: { 'x-request-id': 'req-long-1' } },
    status: 414, code: 'URI_TOO_LONG', headers: { 'x-request-id': 'req-long-1' },
    expect: { error: { message: 'A segment of the URL path is longer than 200 characters: shorten it (send long values in a query body instead).', details: { limit: 200 } } },
    absent: ['999999', 'FST_ERR'],
  },
  {
    name: 'malformed JSON: 400 MALFORMED_JSON',
    request: { method: 'POST', url: '/api/v1/echo', headers: json, payload: '{"n": 1,' },
    status: 400, code: 'MALFORMED_JSON', absent: ['SyntaxError', '    at '],
  },
  {
    name: 'an empty body sent as JSON: 400 MALFORMED_JSON',
    request: { method: 'POST', url: '/api/v1/echo', headers: json, payload: '' },
    status: 400, code: 'MALFORMED_JSON',
    expect: { error: { details: { reason: 'the body is empty but Content-Type is application/json' } } },
  },
  {
    name: 'a body over server.bodyLimit: 413 PAYLOAD_TOO_LARGE with the limit',
    request: { method: 'POST', url: '/api/v1/echo', headers: json, payload: JSON.stringify({ n: 1, pad: 'x'.repeat(300) }) },
    status: 413, code: 'PAYLOAD_TOO_LARGE',
    expect: { error: { message: 'The request body is larger than the limit of 256 bytes.', details: { limit: 256 } } },
  },
  {
    name: 'a content type without a parser: 415 UNSUPPORTED_MEDIA_TYPE',
    request: { method: 'POST', url: '/api/v1/echo', headers: { 'content-type': 'application/xml' }, payload: '<n>1</n>' },
    status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', expect: { error: { details: { contentType: 'application/xml' } } },
  },
  {
    name: 'a missing required field: 400 VALIDATION_ERROR with the path',
    request: { method: 'POST', url: '/api/v1/echo', payload: {} },
    status: 400, code: 'VALIDATION_ERROR',
    expect: { error: { details: { errors: [{ path: 'body', message: "must have required property 'n'" }] } } },
  },
  {
    name: 'a wrong type and an unknown field: every problem listed, each with its path',
    request: { method: 'POST', url: '/api/v1/echo', payload: { n: 'one', extra: true } },
    status: 400, code: 'VALIDATION_ERROR',
    expect: {
      error: {
        message: 'The request is not valid: body/extra must NOT have additional properties; body/n must be integer',
        details: { errors: [{ path: 'body/extra', message: 'must NOT have additional properties' }, { path: 'body/n', message: 'must be integer' }] },
      },
    },
  },
  {
    name: 'a bad path parameter: 400 VALIDATION_ERROR at params/id',
    request: { method: 'GET', url: '/api/v1/items/abc' },
    status: 400, code: 'VALIDATION_ERROR', expect: { error: { details: { errors: [{ path: 'params/id', message: 'must be integer' }] } } },
  },
  {
    name: 'a valid request passes the schema',
    request: { method: 'POST', url: '/api/v1/echo', payload: { n: 7 } },
    status: 200, expect: { n: 7 },
  },
  {
    name: 'a handler throwing a plain Error: 500 INTERNAL with the request id, no message, no stack',
    request: { method: 'GET', url: '/api/v1/boom', headers: { 'x-request-id': 'req-boom-1' } },
    status: 500, code: 'INTERNAL',
    expect: { error: { message: 'An internal error occurred. Quote request id req-boom-1 when reporting it.', details: { requestId: 'req-boom-1' } } },
    absent: ['hunter2', 'db password', '    at ', '.ts:', 'stack'],
  },
  {
    name: "a handler throwing codedError('NOT_FOUND'): 404 with its message and details",
    request: { method: 'GET', url: '/api/v1/gone' },
    status: 404, code: 'NOT_FOUND', expect: { error: { message: 'Invoice 42 was not found.', details: { what: 'Invoice 42' } } },
  },
];

await t.test('scenarios', (t) => runScenarios(t, rt, scenarios));

t.test('the internal error is logged on the server, with the request id', async (t) => {
  const line = logged.map((l) => JSON.parse(l) as { msg?: string; reqId?: string; err?: { message?: string } }).find((l) => l.reqId === 'req-boom-1');
  t.equal(line?.msg, 'request failed');
  t.equal(line?.err?.message, 'db password is hunter2');
});

t.test('x-request-id: echoed when valid, replaced when not', async (t) => {
  const cases: Array<{ sent?: string; echoed: boolean }> = [
    { sent: 'abc-123', echoed: true },
    { sent: 'Trace.42:span_1'.replace('_', '-'), echoed: true },
    { sent: 'x'.repeat(64), echoed: true },
    { sent: 'x'.repeat(65), echoed: false },
    { sent: 'x'.repeat(200), echoed: false },
    { sent: 'has space', echoed: false },
    { sent: 'a/b', echoed: false },
    { sent: '<script>', echoed: false },
    { echoed: false },
  ];
  for (const c of cases) {
    const res = await rt.inject({ method: 'GET', url: '/api/v1/gone', headers: c.sent === undefined ? {} : { 'x-request-id': c.sent } });
    const id = res.headers['x-request-id'];
    if (c.echoed) t.equal(id, c.sent, `${c.sent} is echoed`);
    else {
      t.match(id, UUID, `${String(c.sent).slice(0, 20)} is replaced by a UUID`);
      t.not(id, c.sent);
    }
  }
  const internal = await rt.inject({ method: 'GET', url: '/api/v1/boom', headers: { 'x-request-id': 'bad id' } });
  const id = internal.headers['x-request-id'] as string;
  t.match(id, UUID);
  t.equal((internal.json() as { error: { details: { requestId: string } } }).error.details.requestId, id, 'the body quotes the id sent back');
});
