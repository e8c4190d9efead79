#!/usr/bin/env node
// @ts-check
/**
 * `npm run build`: compiles the runtime's TypeScript to JavaScript in dist/ (one module per source
 * file, imports rewritten from .ts to .js, source maps beside them), copies the other files of
 * those directories (system apps, explorer assets), bundles the console's browser app
 * (bin/buildConsole.js) and writes the manifest bin/compiledTree.js
 * checks. The new tree is written beside the old one and swapped in at the end, so a start never
 * sees half a tree. `--if-stale` builds only when the tree no longer matches the sources.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildConsole, CONSOLE_OUT, CONSOLE_SOURCES } from './buildConsole.js';
import { BUILD_FORMAT, CORE_DIRS, DIST_DIR, EXTRA_ENTRIES, MANIFEST_FILE, readManifest, SKIPPED, unitChange, unitOf } from './compiledTree.js';

/** @typedef {import('./compiledTree.js').Manifest} Manifest */

/**
 * The files of the tree, by unit: TypeScript to compile, other files to copy, directories seen.
 * @param {string} root
 */
export function collectSources(root) {
  /** @type {string[]} */ const modules = [];
  /** @type {string[]} */ const assets = [];
  /** @type {string[]} */ const dirs = [];
  /** @type {string[]} */ const browser = [];
  /** @param {string} rel */
  const visit = (rel) => {
    const abs = join(root, rel);
    const stat = statSync(abs, { throwIfNoEntry: false });
    if (!stat || SKIPPED.includes(rel)) return;
    if (stat.isDirectory()) {
      dirs.push(rel);
      for (const name of readdirSync(abs).sort()) {
        if (name.startsWith('.') || name === 'node_modules') continue;
        visit(`${rel}/${name}`);
      }
    } else if (rel.startsWith(`${CONSOLE_SOURCES}/`)) {
      // The console's browser sources: bundled into one app below, never run by Node.
      browser.push(rel);
    } else if (rel.endsWith('.test.ts') || rel.endsWith('.d.ts')) {
      // Tests and declarations are not part of what runs; their directory is still watched.
    } else if (rel.endsWith('.ts')) modules.push(rel);
    else assets.push(rel);
  };
  for (const entry of [...CORE_DIRS, ...EXTRA_ENTRIES]) visit(entry);
  return { modules, assets, dirs, browser };
}

/**
 * @param {string} root
 * @param {{ modules: string[], assets: string[], dirs: string[], browser: string[] }} sources
 * @returns {Manifest}
 */
function manifestOf(root, sources) {
  /** @type {Manifest} */
  const manifest = { format: BUILD_FORMAT, units: {} };
  const unit = (/** @type {string} */ rel) => (manifest.units[unitOf(rel)] ??= { files: {}, dirs: {} });
  // The version the runtime reports comes from package.json.
  for (const rel of [...sources.modules, ...sources.assets, ...sources.browser, 'package.json']) {
    const stat = statSync(join(root, rel));
    unit(rel).files[rel] = [stat.mtimeMs, stat.size];
  }
  for (const rel of sources.dirs) unit(rel).dirs[rel] = statSync(join(root, rel)).mtimeMs;
  return manifest;
}

/**
 * Compiles the tree into `root/dist`. Returns what was done, for the one line printed.
 * @param {string} root
 */
export async function buildCompiled(root) {
  const started = performance.now();
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  /** @param {string} specifier @param {string} importer @returns {string | null} */
  const selfReference = (specifier, importer) => {
    if (specifier !== pkg.name && !specifier.startsWith(`${pkg.name}/`)) return null;
    const entry = pkg.exports?.[`.${specifier.slice(pkg.name.length)}`];
    const target = typeof entry === 'string' ? entry : entry?.default;
    if (typeof target !== 'string' || !target.endsWith('.ts')) return null;
    const path = relative(dirname(importer), join(root, target)).split(sep).join('/').replace(/\.ts$/, '.js');
    return path.startsWith('.') ? path : `./${path}`;
  };
  const { build } = await import('esbuild');
  const sources = collectSources(root);
  // Recorded before reading, so a file saved during the build reads as changed afterwards.
  const manifest = manifestOf(root, sources);
  const target = join(root, DIST_DIR);
  const staging = `${target}.staging-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  try {
    await build({
      absWorkingDir: root,
      entryPoints: sources.modules,
      outdir: staging,
      outbase: '.',
      // Bundling only to see every import: each one stays external, a .ts path becomes .js.
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      sourcemap: 'linked',
      sourcesContent: false,
      logLevel: 'warning',
      plugins: [{
        name: 'keep-imports',
        setup(b) {
          b.onResolve({ filter: /.*/ }, (args) => {
            if (args.kind === 'entry-point') return undefined;
            const relativePath = args.path.startsWith('.') || args.path.startsWith('/');
            if (relativePath) return { path: args.path.replace(/\.ts$/, '.js'), external: true };
            // The package's own entry points (`osr-runtime/kernel`): dist/ is not that package, so
            // they become the relative path of the compiled module, the one the runtime runs.
            const own = selfReference(args.path, args.importer);
            return { path: own ?? args.path, external: true };
          });
        },
      }],
    });
    for (const rel of sources.assets) {
      mkdirSync(dirname(join(staging, rel)), { recursive: true });
      copyFileSync(join(root, rel), join(staging, rel));
    }
    await buildConsole(root, join(staging, CONSOLE_OUT));
    // The nearest package.json of the compiled modules: ES modules, and the runtime's version.
    writeFileSync(join(staging, 'package.json'), `${JSON.stringify({ name: `${pkg.name}-compiled`, private: true, type: 'module', version: pkg.version }, null, 2)}\n`);
    writeFileSync(join(staging, MANIFEST_FILE), JSON.stringify(manifest));
    swapIn(staging, target);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
  return { modules: sources.modules.length, assets: sources.assets.length, ms: Math.round(performance.now() - started) };
}

/** @param {string} staging @param {string} target */
function swapIn(staging, target) {
  const retired = `${target}.retired-${process.pid}`;
  if (existsSync(target)) renameSync(target, retired);
  renameSync(staging, target);
  rmSync(retired, { recursive: true, force: true });
}

/** The first unit that no longer matches its sources (with why), or null when all do. */
export function staleness(/** @type {string} */ root) {
  const manifest = readManifest(root);
  if (!manifest) return 'there is no compiled tree';
  const units = new Set(['core', ...EXTRA_ENTRIES.filter((e) => existsSync(join(root, e)))]);
  for (const unit of units) {
    const change = unitChange(root, manifest, unit);
    if (change) return change;
  }
  return null;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const ifStale = process.argv.includes('--if-stale');
  const reason = staleness(root);
  if (ifStale && reason === null) {
    console.log('osr build: dist/ matches the sources');
  } else {
    buildCompiled(root).then(
      (done) => console.log(`osr build: ${done.modules} modules compiled and ${done.assets} files copied into ${DIST_DIR}/ in ${done.ms} ms`),
      (error) => {
        console.error(`osr build failed: ${error instanceof Error ? error.message : String(error)}`);
        process.exitCode = 1;
      },
    );
  }
}
