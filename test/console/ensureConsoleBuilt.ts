import { buildCompiled, staleness } from '../../bin/buildCompiled.js';

const ROOT = new URL('../..', import.meta.url).pathname;

/** The console is served from the compiled tree: build it when the sources changed since. */
export async function ensureConsoleBuilt(): Promise<void> {
  if (staleness(ROOT) !== null) await buildCompiled(ROOT);
}

export const CONSOLE_DIR = `${ROOT}dist/console`;
