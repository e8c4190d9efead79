import { buildCompiled, staleness } from '../../bin/buildCompiled.js';
import { consoleDir } from '../../plugins/console/consoleFiles.ts';

const ROOT = new URL('../..', import.meta.url).pathname;

/** The console is served from the compiled tree: build it when the sources changed since. */
export async function ensureConsoleBuilt(): Promise<void> {
  if (staleness(ROOT) !== null) await buildCompiled(ROOT);
}

/** Where the build wrote the app (dist/console). */
export const CONSOLE_DIR = consoleDir();
