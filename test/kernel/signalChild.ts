/**
 * Run by signals.test.ts in its own process, where no test runner handles signals: boots a
 * kernel, installs the handlers with a recording exit, then sends itself SIGTERM.
 */
import { entry, kernelOf } from './fixtures.ts';

const listeners = () => ({ SIGINT: process.listenerCount('SIGINT'), SIGTERM: process.listenerCount('SIGTERM') });
const before = listeners();
const kernel = kernelOf([
  entry({ name: 'db', drain: () => {}, stop: () => {} }),
  entry({ name: 'http', drain: () => {}, stop: () => {} }),
]);
await kernel.boot();
// Keeps the process alive until the signal arrives; fails loudly if exit is never called.
const guard = setTimeout(() => {
  process.stderr.write('exit was not called within 5 s of SIGTERM\n');
  process.exitCode = 1;
}, 5_000);
kernel.installSignalHandlers((code) => {
  clearTimeout(guard);
  const report = { code, timeline: kernel.timeline, states: kernel.states().map((s) => s.status), before, installed, after: listeners() };
  process.stdout.write(`${JSON.stringify(report)}\n`);
});
const installed = listeners();
process.kill(process.pid, 'SIGTERM');
