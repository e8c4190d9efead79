/**
 * Child process: the runtime as `osr start --workers N` runs it (bin/clusterPrimary.js), N from
 * OSR_BENCH_WORKERS, each worker as bench/servers/runtimeServer.js runs the runtime. Tells the
 * parent its URL once every worker serves; on {type: 'stop'} it stops them all and exits. CPU and
 * memory are the workers' (bench/spawnServer.ts counts the child's descendants).
 */
import cluster from 'node:cluster';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const count = Number(process.env.OSR_BENCH_WORKERS ?? '2');
if (cluster.isPrimary) {
  const { runPrimary } = await import('../../bin/clusterPrimary.js');
  process.on('message', (/** @type {{ type?: string }} */ message) => {
    if (message.type === 'stop') process.kill(process.pid, 'SIGTERM');
  });
  const code = await runPrimary(count, (message, serving) => {
    if (serving === count) process.send?.({ type: 'ready', url: message.url });
  });
  process.exit(code);
} else {
  const tree = process.env.OSR_BENCH_TREE ?? fileURLToPath(new URL('../../dist/', import.meta.url));
  /** @type {typeof import('../../dist/runtime/createRuntime.js')} */
  const { createRuntime } = await import(pathToFileURL(join(tree, 'runtime/createRuntime.js')).href);
  const runtime = await createRuntime({ inline: JSON.parse(process.argv[2] ?? '{}'), env: {} });
  await runtime.start();
  runtime.kernel.installSignalHandlers();
  process.send?.({ osr: 'ready', url: runtime.http().url() });
}
