import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { CONSOLE_MANIFEST, CONSOLE_OUT, type ConsoleManifest } from './consoleBuild.js';

/** One built file in memory, in each encoding it was written in. */
export interface ConsoleFile {
  type: string;
  identity: Buffer;
  gzip: Buffer;
  brotli: Buffer;
}

export interface ConsoleFiles {
  page: Buffer;
  manifest: ConsoleManifest;
  assets: Map<string, ConsoleFile>;
}

/**
 * Where `npm run build` wrote the app: `dist/console` of the package. This module runs either from
 * the sources (plugins/console/) or from the compiled tree (dist/plugins/console/), whose root
 * holds the build's manifest.
 */
export function consoleDir(): string {
  const here = fileURLToPath(new URL('.', import.meta.url));
  const compiledRoot = join(here, '..', '..');
  return existsSync(join(compiledRoot, '.manifest.json')) ? join(compiledRoot, CONSOLE_OUT) : join(compiledRoot, 'dist', CONSOLE_OUT);
}

/** Reads the built app into memory (a few hundred kilobytes); null when it was never built. */
export async function readConsoleFiles(dir: string): Promise<ConsoleFiles | null> {
  if (!existsSync(join(dir, CONSOLE_MANIFEST))) return null;
  const manifest = JSON.parse(await readFile(join(dir, CONSOLE_MANIFEST), 'utf8')) as ConsoleManifest;
  const assets = new Map<string, ConsoleFile>();
  for (const [name, file] of Object.entries(manifest.files)) {
    const at = join(dir, 'assets', name);
    const [identity, gzip, brotli] = await Promise.all([readFile(at), readFile(`${at}.gz`), readFile(`${at}.br`)]);
    assets.set(name, { type: file.type, identity, gzip, brotli });
  }
  return { page: await readFile(join(dir, 'index.html')), manifest, assets };
}
