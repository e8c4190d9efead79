// @ts-check
/**
 * The console's browser app, bundled by `npm run build` beside the compiled runtime: the entry ES
 * module (with the chunks of the screens it loads on demand) and one style sheet from
 * plugins/console/app, minified, named by their content's hash (so they can be cached for a year),
 * each written beside its gzip and brotli forms, and the page that loads them. The page holds no inline script or style: the console's Content-Security-Policy allows
 * only files of its own origin. `console.json` lists what was written, for the plugin that serves
 * it and for the test that bounds the initial JavaScript.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

import { ASSET_BASE, CONSOLE_MANIFEST, CONSOLE_OUT } from '../plugins/console/consoleBuild.js';

export { CONSOLE_OUT };
/** Where the app's sources are, repository-relative. */
export const CONSOLE_SOURCES = 'plugins/console/app';

/** @param {string} name */
export function contentType(name) {
  if (name.endsWith('.js')) return 'text/javascript; charset=utf-8';
  if (name.endsWith('.css')) return 'text/css; charset=utf-8';
  if (name.endsWith('.svg')) return 'image/svg+xml';
  if (name.endsWith('.map')) return 'application/json; charset=utf-8';
  return 'application/octet-stream';
}

/**
 * @typedef {import('../plugins/console/consoleBuild.js').BuiltFile} BuiltFile
 * @typedef {import('../plugins/console/consoleBuild.js').ConsoleManifest} ConsoleManifest
 */

/**
 * @param {string} root the repository
 * @param {string} out the directory to write (replaced)
 * @returns {Promise<ConsoleManifest>}
 */
export async function buildConsole(root, out) {
  const { build } = await import('esbuild');
  rmSync(out, { recursive: true, force: true });
  const assets = join(out, 'assets');
  mkdirSync(assets, { recursive: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: [`${CONSOLE_SOURCES}/main.tsx`, `${CONSOLE_SOURCES}/console.css`],
    outdir: assets,
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    // Screens imported with import() (the administration) become files of their own, loaded when opened.
    chunkNames: 'chunk-[hash]',
    splitting: true,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome111', 'firefox115', 'safari16.4'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    sourcemap: false,
    legalComments: 'none',
    define: { 'process.env.NODE_ENV': '"production"' },
    metafile: true,
    // Packages resolve inside this checkout's node_modules, even when it is a link to another one's.
    preserveSymlinks: true,
    logLevel: 'warning',
  });
  /** @type {Record<string, BuiltFile>} */
  const files = {};
  let script = '';
  let style = '';
  for (const [path, output] of Object.entries(result.metafile.outputs)) {
    const name = basename(path);
    const data = readFileSync(join(root, path));
    const gz = gzipSync(data, { level: 9 });
    const br = brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: data.length } });
    writeFileSync(join(assets, `${name}.gz`), gz);
    writeFileSync(join(assets, `${name}.br`), br);
    files[name] = { type: contentType(name), bytes: data.length, gzip: gz.length, brotli: br.length };
    if (output.entryPoint?.endsWith('main.tsx')) script = name;
    else if (name.endsWith('.css') && output.entryPoint) style = name;
  }
  if (!script || !style) throw new Error('the console bundle has no entry script or style sheet');
  /** @type {ConsoleManifest} */
  const manifest = { script, style, initial: initialScripts(result.metafile, script), files };
  writeFileSync(join(out, 'index.html'), consolePage(manifest));
  writeFileSync(join(out, CONSOLE_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/**
 * The scripts the page loads before anything else: the entry and every file it imports statically,
 * transitively (the chunks it shares with lazily loaded screens); not those behind an import().
 * @param {import('esbuild').Metafile} metafile
 * @param {string} entry
 * @returns {string[]}
 */
export function initialScripts(metafile, entry) {
  const byName = new Map(Object.entries(metafile.outputs).map(([path, output]) => [basename(path), output]));
  const seen = new Set([entry]);
  const queue = [entry];
  while (queue.length > 0) {
    const output = byName.get(/** @type {string} */ (queue.shift()));
    for (const imported of output?.imports ?? []) {
      const name = basename(imported.path);
      if (imported.kind !== 'import-statement' || seen.has(name)) continue;
      seen.add(name);
      queue.push(name);
    }
  }
  return [...seen];
}

/** The one page of the app: no inline script or style, every URL absolute (it is served at any depth). */
export function consolePage(/** @type {ConsoleManifest} */ manifest) {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    '<title>Console</title>',
    `<link rel="stylesheet" href="${ASSET_BASE}${manifest.style}">`,
    `<script type="module" src="${ASSET_BASE}${manifest.script}"></script>`,
    '</head>',
    '<body>',
    '<div id="app"><noscript>The console needs JavaScript.</noscript></div>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
