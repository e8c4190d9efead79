/**
 * Child process: the runtime, listening on 127.0.0.1, with the config given as JSON in argv[2].
 * Tells the parent its URL over IPC; on {type: 'stop'} it stops and exits normally, so that
 * --cpu-prof can write its profile.
 */
import { createRuntime } from '../../runtime/createRuntime.ts';

const config = JSON.parse(process.argv[2] ?? '{}') as Record<string, unknown>;
const runtime = await createRuntime({ inline: config, env: {} });
await runtime.start();
process.on('message', (message: { type?: string }) => {
  if (message.type === 'memory') {
    // Live heap after a full collection (with --expose-gc), beside what the process holds.
    (globalThis as { gc?: () => void }).gc?.();
    process.send!({ type: 'memory', usage: process.memoryUsage() });
  }
  if (message.type === 'stop') runtime.stop().finally(() => process.exit(0));
});
process.send!({ type: 'ready', url: runtime.http().url() });
