#!/usr/bin/env node
// The runtime is TypeScript. `npm run build` compiles it into dist/; a start uses that tree while it
// matches the sources (bin/compiledTree.js), and otherwise runs the sources through tsx.
import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { compiledTree, readManifest, TREE_KEY, unitChange } from './compiledTree.js';

const root = fileURLToPath(new URL('..', import.meta.url));

// `osr start --workers N` (default: the number of cores): this process becomes the cluster's
// primary and loads nothing of the runtime; each worker runs this file again (bin/clusterPrimary.js).
if (cluster.isPrimary) {
  const { values, positionals } = parseArgs({ args: process.argv.slice(2), strict: false, allowPositionals: true, options: { config: { type: 'string' }, port: { type: 'string' }, date: { type: 'string' }, workers: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
  if ((positionals[0] ?? 'start') === 'start' && !values.help) {
    const asked = values.workers;
    const workers = asked === undefined ? availableParallelism() : /^[1-9][0-9]{0,2}$/.test(String(asked)) ? Number(asked) : NaN;
    if (!Number.isInteger(workers) || workers > 256) {
      console.error(`osr start: --workers must be a whole number from 1 to 256, not '${String(asked)}'`);
      process.exit(2);
    }
    if (workers > 1) {
      const { runPrimary } = await import('./clusterPrimary.js');
      process.exit(await runPrimary(workers, undefined, asked !== undefined));
    }
  }
}
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
