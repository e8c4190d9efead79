/** Graceful shutdown on SIGTERM: drain and stop run, then the exit function gets 0. */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';

const child = fileURLToPath(new URL('./signalChild.ts', import.meta.url));

t.test('SIGTERM drains and stops in reverse order, then exits with 0', async (t) => {
  // A process of its own: the test runner's signal handling would end this test instead.
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', child], { timeout: 20_000 });
  const report = JSON.parse(stdout);
  t.equal(report.code, 0, 'exit(0) after a clean shutdown');
  t.same(report.timeline, ['db:register', 'http:register', 'http:drain', 'db:drain', 'http:stop', 'db:stop']);
  t.same(report.states, ['stopped', 'stopped']);
  t.same(report.installed, { SIGINT: report.before.SIGINT + 1, SIGTERM: report.before.SIGTERM + 1 }, 'one handler per signal');
  t.same(report.after, report.before, 'both handlers are released after the first signal');
});
