/**
 * Testing a plugin inside the runtime it will run in: boot it from config, call its route,
 * and check that the operator's grants are enforced. Copy this file next to your plugin.
 */
import t from 'tap';
// Published plugins import these from 'osr-runtime/testing' and 'osr-runtime/kernel'.
import { startTestRuntime } from '../../test/harness/startTestRuntime.ts';
import type { KernelBootError } from '../../kernel/index.ts';

// Paths in config are relative to the repository root here (startTestRuntime's `cwd` option).
const hello = { path: './examples/hello-plugin', greeting: 'Hi' };

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
