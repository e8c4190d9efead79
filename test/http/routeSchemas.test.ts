/**
 * Route schemas are compiled at boot without the meta-schema check (plugins/http/createServer.ts),
 * so every built-in route's schemas are checked against the JSON Schema meta-schema here.
 */
import Ajv from 'ajv';
import t from 'tap';
import type { HttpRoutes } from '../../capabilities/httpRoutes.ts';
import { startTestRuntime } from '../harness/startTestRuntime.ts';

t.test('every schema of every built-in route is a valid JSON schema', async (t) => {
  const rt = await startTestRuntime({
    config: {
      apps: ['metadata/apps/crm'],
      plugins: { crm: { enabled: true }, 'org-scoping': { enabled: true }, mcp: { enabled: true } },
    },
  });
  t.teardown(() => rt.close());
  const routes = rt.runtime.kernel.service<HttpRoutes>('http.routes')!.list();
  const ajv = new Ajv.default({ strict: false });
  let checked = 0;
  for (const route of routes) {
    const schema = route.schema ?? {};
    const parts: Array<[string, unknown]> = [
      ['params', schema.params], ['querystring', schema.querystring], ['body', schema.body],
      ...Object.entries(schema.response ?? {}).map(([code, s]): [string, unknown] => [`response ${code}`, s]),
    ];
    for (const [part, value] of parts) {
      if (value === undefined) continue;
      const valid = ajv.validateSchema(value as object);
      t.ok(valid, `${route.method} ${route.path} ${part}${valid ? '' : `: ${ajv.errorsText(ajv.errors)}`}`);
      checked++;
    }
  }
  t.ok(checked > 30, `${checked} schemas checked`);
  t.notOk(ajv.validateSchema({ type: 'object', required: 'name' }), 'the check refuses a schema that is not valid');
});
