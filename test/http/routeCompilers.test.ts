/**
 * Route validators compile on first use or right after listen (plugins/http/routeCompilers.ts):
 * a route still validates from its first request, and a schema that does not compile still fails
 * the boot, naming the route.
 */
import t from 'tap';
import { definePlugin } from '../../kernel/definePlugin.ts';
import { BUILTIN_PLUGINS } from '../../plugins/builtin.ts';
import { startTestRuntime } from '../harness/startTestRuntime.ts';

function echoPlugin(name: string, body: object) {
  return definePlugin({
    name,
    version: '1.0.0',
    kernel: '^16.0.0',
    requires: ['http.routes'],
    register(ctx) {
      ctx.resolve('http.routes').add({
        method: 'POST', path: `/${name}/echo`, public: true, summary: 'Echo', scope: 'none',
        schema: { body, response: { 200: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] } } },
        handler: async (request) => ({ count: (request.body as { count: number }).count, hidden: 'not in the response schema' }),
      });
    },
  });
}

const countBody = { type: 'object', properties: { count: { type: 'integer', minimum: 1 } }, required: ['count'], additionalProperties: false };

t.test('a route validates and serializes from its first request', async (t) => {
  const rt = await startTestRuntime({
    builtins: [...BUILTIN_PLUGINS, { manifest: echoPlugin('test-echo', countBody), enabledByDefault: true }],
  });
  t.teardown(() => rt.close());
  for (const url of ['/api/v1/test-echo/echo', '/api/v2/environments/default/test-echo/echo']) {
    const bad = await rt.inject({ method: 'POST', url, payload: { count: 0 } });
    t.same({ status: bad.statusCode, code: bad.json().error?.code }, { status: 400, code: 'VALIDATION_ERROR' }, `${url}: a body the schema refuses is a 400`);
    t.match(bad.json().error.message, /count/, 'naming the field');
    const good = await rt.inject({ method: 'POST', url, payload: { count: 3 } });
    t.same({ status: good.statusCode, body: good.json() }, { status: 200, body: { count: 3 } }, `${url}: the answer is serialized by its schema (no extra field)`);
  }
});

t.test('a route schema that does not compile fails the boot, naming the route', async (t) => {
  const broken = { type: 'object', properties: { count: { type: 'integer', minimum: 'one' } } };
  await t.rejects(
    startTestRuntime({ builtins: [...BUILTIN_PLUGINS, { manifest: echoPlugin('test-broken', broken), enabledByDefault: true }] }),
    /body schema of POST \/api\/v1\/test-broken\/echo does not compile/,
  );
});
