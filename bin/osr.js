#!/usr/bin/env node
// The runtime is TypeScript. `npm run build` compiles it into dist/; a start uses that tree while it
// matches the sources (bin/compiledTree.js), and otherwise runs the sources through tsx.
import { fileURLToPath } from 'node:url';
import { compiledTree, readManifest, TREE_KEY, unitChange } from './compiledTree.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const fromSource = process.env.OSR_FROM_SOURCE === '1';
const manifest = fromSource ? null : readManifest(root);
const change = manifest ? unitChange(root, manifest, 'core') : 'there is no compiled tree in dist/';

if (manifest && change === null) {
  /** @type {Record<symbol, unknown>} */ (globalThis)[TREE_KEY] = compiledTree(root, manifest);
  await import('../dist/cli/main.js');
} else {
  if (!fromSource) console.error(`osr: running the TypeScript sources (${change}); npm run build compiles them for a faster start`);
  const { register } = await import('tsx/esm/api');
  register();
  // After tsx, so it sees what tsx resolved (bin/moduleFormatHooks.js).
  (await import('node:module')).register(new URL('./moduleFormatHooks.js', import.meta.url));
  await import('../cli/main.ts');
}
