// @ts-check
/**
 * The compiled tree: `npm run build` compiles the runtime's TypeScript to JavaScript in dist/,
 * file for file, beside a copy of the files the code reads next to itself (system apps, explorer
 * assets). A start from it skips the TypeScript loader, which is most of the boot's time.
 *
 * The tree is used only while it matches the sources: the manifest records the size and mtime
 * of every file and the mtime of every directory it was built from (a directory's mtime changes
 * when a file is added, removed or renamed in it). It is checked in units: the runtime itself
 * (`core`), and each other top-level entry (`examples`, `runtime.config.ts`), so an edited config
 * or example never sends the whole runtime back to the slow path.
 */
import { readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Bumped when the build's output changes shape, so an older tree is rebuilt rather than used. */
export const BUILD_FORMAT = 1;
export const DIST_DIR = 'dist';
export const MANIFEST_FILE = '.manifest.json';

/** The runtime itself: the modules `osr start` imports before anything of the operator's. */
export const CORE_DIRS = ['kernel', 'capabilities', 'metadata', 'plugins', 'runtime', 'cli'];
/** Loaded only when a config names them: each is its own unit. */
export const EXTRA_ENTRIES = ['examples', 'runtime.config.ts'];
/** Operator content that is read from the sources, never compiled (apps are data). */
export const SKIPPED = ['metadata/apps'];

/** @param {string} path repository-relative, with forward slashes */
export function unitOf(path) {
  const top = path.split('/')[0] ?? path;
  return CORE_DIRS.includes(top) ? 'core' : top;
}

/**
 * @typedef {{ format: number, units: Record<string, { files: Record<string, [number, number]>, dirs: Record<string, number> }> }} Manifest
 */

/** @param {string} root @returns {Manifest | null} */
export function readManifest(root) {
  try {
    const manifest = JSON.parse(readFileSync(join(root, DIST_DIR, MANIFEST_FILE), 'utf8'));
    return manifest && manifest.format === BUILD_FORMAT && typeof manifest.units === 'object' ? manifest : null;
  } catch {
    return null;
  }
}

/**
 * The first difference between a unit and its sources, or null when it matches them.
 * @param {string} root @param {Manifest} manifest @param {string} unit
 * @returns {string | null}
 */
export function unitChange(root, manifest, unit) {
  const recorded = manifest.units[unit];
  if (!recorded) return `${unit} was not built`;
  for (const [path, [mtimeMs, size]] of Object.entries(recorded.files)) {
    const now = statOrNull(join(root, path));
    if (!now) return `${path} is gone`;
    if (now.mtimeMs !== mtimeMs || now.size !== size) return `${path} changed`;
  }
  for (const [path, mtimeMs] of Object.entries(recorded.dirs)) {
    const now = statOrNull(join(root, path));
    if (!now || now.mtimeMs !== mtimeMs) return `files were added or removed in ${path}/`;
  }
  return null;
}

/** @param {string} path */
function statOrNull(path) {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

/**
 * What the runtime needs to know of the tree it runs from: where a source file's compiled twin
 * is, and how to load a module that has none (an operator's TypeScript outside the tree).
 * @param {string} root
 * @param {Manifest} manifest
 */
export function compiledTree(root, manifest) {
  /** @type {Map<string, boolean>} */
  const fresh = new Map([['core', true]]);
  /** @type {Promise<void> | null} */
  let loader = null;
  return {
    /**
     * The compiled twin of a source file, when its unit is current; else null.
     * @param {string} file absolute path or file URL
     */
    twinOf(file) {
      const path = file.startsWith('file:') ? fileURLToPath(file) : file;
      const rel = relative(root, path).split(sep).join('/');
      if (rel.startsWith('..') || !/\.ts$/.test(rel)) return null;
      const unit = unitOf(rel);
      const entry = manifest.units[unit];
      if (!entry || !(rel in entry.files)) return null;
      if (!fresh.has(unit)) fresh.set(unit, unitChange(root, manifest, unit) === null);
      return fresh.get(unit) ? join(root, DIST_DIR, rel.replace(/\.ts$/, '.js')) : null;
    },
    /**
     * Registers the TypeScript loader for modules outside the tree, once. Its imports of the
     * runtime's sources (`osr-runtime/kernel`, `../kernel/index.ts`) resolve to the compiled
     * twins already loaded, so there is one kernel, not two.
     */
    enableSourceLoading() {
      loader ??= (async () => {
        const { register } = await import('tsx/esm/api');
        register();
        // Registered after tsx, so they run first: they let tsx resolve, then swap in the twin
        // or load an operator's TypeScript with ES module syntax as an ES module.
        const { register: registerHooks } = await import('node:module');
        registerHooks(new URL('./moduleFormatHooks.js', import.meta.url));
        registerHooks(new URL('./twinHooks.js', import.meta.url), { data: { root } });
      })();
      return loader;
    },
  };
}

/** @typedef {ReturnType<typeof compiledTree>} CompiledTree */

/** Where bin/osr.js leaves the tree for the runtime (kernel/importModule.ts reads it). */
export const TREE_KEY = Symbol.for('osr.compiledTree');
