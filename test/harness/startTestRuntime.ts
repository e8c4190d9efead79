import { startTestRuntime as start, type TestRuntime, type TestRuntimeOptions } from '../../runtime/startTestRuntime.ts';

export type { TestRuntime, TestRuntimeOptions };

const ROOT = new URL('../..', import.meta.url).pathname;

/** The runtime's own tests: `osr-runtime/testing` with paths relative to the repository root. */
export function startTestRuntime(options: TestRuntimeOptions = {}): Promise<TestRuntime> {
  return start({ cwd: ROOT, ...options });
}
