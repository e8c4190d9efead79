/**
 * Child process: the runtime from a compiled tree (as `osr start` runs it; bench/run.ts builds
 * the tree first when it is stale), listening on 127.0.0.1, with the config given as JSON in
 * argv[2]. The tree is the repository's dist/, or OSR_BENCH_TREE (a revision's tree, for
 * --compare). Tells the parent its URL over IPC; on {type: 'stop'} it stops and exits normally,
 * so that --cpu-prof can write its profile.
 */
import { join } from 'node:path';
import v8 from 'node:v8';
import { fileURLToPath, pathToFileURL } from 'node:url';

const tree = process.env.OSR_BENCH_TREE ?? fileURLToPath(new URL('../../dist/', import.meta.url));
/** @type {typeof import('../../dist/runtime/createRuntime.js')} */
const { createRuntime } = await import(pathToFileURL(join(tree, 'runtime/createRuntime.js')).href);

const config = JSON.parse(process.argv[2] ?? '{}');
const runtime = await createRuntime({ inline: config, env: {} });
await runtime.start();
process.on('message', (/** @type {{ type?: string }} */ message) => {
  if (message.type === 'memory') {
    // Live heap after a full collection (with --expose-gc), beside what the process holds.
    /** @type {{ gc?: () => void }} */ (globalThis).gc?.();
    process.send?.({ type: 'memory', usage: process.memoryUsage() });
  }
  if (message.type === 'stop') runtime.stop().finally(() => process.exit(0));
});
// OSR_BENCH_MEMORY_MS=n: what the process holds, every n ms on stderr (where a peak RSS comes from):
// RSS, the heap, and each V8 heap space as size/used.
const every = Number(process.env.OSR_BENCH_MEMORY_MS ?? 0);
if (every > 0) {
  const mb = (/** @type {number} */ n) => Math.round(n / 1048576);
  setInterval(() => {
    const u = process.memoryUsage();
    const spaces = v8.getHeapSpaceStatistics().map((s) => `${s.space_name.replace('_space', '')} ${mb(s.space_size)}/${mb(s.space_used_size)}`).join(', ');
    process.stderr.write(`memory: rss ${mb(u.rss)} heapTotal ${mb(u.heapTotal)} heapUsed ${mb(u.heapUsed)} external ${mb(u.external)} arrayBuffers ${mb(u.arrayBuffers)} MB; ${spaces}\n`);
  }, every).unref();
}
process.send?.({ type: 'ready', url: runtime.http().url() });
