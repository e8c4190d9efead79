/**
 * Testing a plugin inside the runtime it will run in: boot it from config, call its route,
 * and check that the operator's grants are enforced. It imports the runtime only through
 * `osr-runtime/testing` and `osr-runtime/kernel`, so it runs unchanged in a folder of its own.
 */
import t from 'tap';
import type { KernelBootError } from 'osr-runtime/kernel';
import { startTestRuntime } from 'osr-runtime/testing';

// This plugin's own folder, wherever it is.
const hello = { path: new URL('.', import.meta.url).pathname, greeting: 'Hi' };

t.test('GET /api/v1/hello answers with the configured greeting', async (t) => {
  const rt = await startTestRuntime({ config: { plugins: { hello: { ...hello, grants: ['http.routes'] } } } });
  t.teardown(() => rt.close());

  const res = await rt.inject({ method: 'GET', url: '/api/v1/hello' });
  t.equal(res.statusCode, 200);
  t.same(res.json(), { greeting: 'Hi', created: {} });
});

t.test('without the http.routes grant the runtime refuses to boot', async (t) => {
  const error = (await startTestRuntime({ config: { plugins: { hello } } }).catch((e: unknown) => e)) as KernelBootError;
  t.equal(error.code, 'KERNEL_BOOT_FAILED');
  t.same(error.failures.map((f) => [f.code, f.details.plugin, f.details.token]), [['KERNEL_TOKEN_NOT_GRANTED', 'hello', 'http.routes']]);
  t.match(error.message, "Fix: add 'http.routes' to plugins.hello.grants");
});
