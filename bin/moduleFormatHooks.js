// @ts-check
/**
 * Module hooks for an operator's TypeScript (config, plugins, declarations), registered after the
 * TypeScript loader (tsx) so they see what it resolved. tsx gives a `.ts` file the format of its
 * package: CommonJS when no package.json says `"type"`, as in a plugin folder of its own. The
 * runtime imports such files as ES modules, and a file written with `import`/`export` would then
 * be required as CommonJS from inside the import that loads it, which Node refuses ("require() of
 * ES Module in a cycle"). Node itself loads an ambiguous JavaScript file with ES module syntax as
 * an ES module; these hooks do the same for TypeScript.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPESCRIPT = /\.tsx?$/;
/** An `export` statement, or an `import` from a module, at the start of a line. */
const MODULE_SYNTAX = /^\s*(?:export\s|import\s[^=;]*\bfrom\s|import\s*['"])/m;

/** @type {Map<string, string | null>} the nearest package.json's `type` for a directory ('' when it has none), null outside any package */
const packageTypes = new Map();

/**
 * @param {string} dir
 * @returns {string | null}
 */
function packageType(dir) {
  if (packageTypes.has(dir)) return packageTypes.get(dir) ?? null;
  /** @type {string | null} */
  let type = null;
  try {
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    type = typeof manifest?.type === 'string' ? manifest.type : '';
  } catch (error) {
    const parent = dirname(dir);
    if (/** @type {NodeJS.ErrnoException} */ (error).code === 'ENOENT' && parent !== dir) type = packageType(parent);
    else if (/** @type {NodeJS.ErrnoException} */ (error).code !== 'ENOENT') type = '';
  }
  packageTypes.set(dir, type);
  return type;
}

/**
 * Whether a file tsx took for CommonJS is an ES module: TypeScript, in no package or one without
 * `"type"`, written with `import` or `export`.
 * @param {string} url
 */
export function isAmbiguousModule(url) {
  if (!url.startsWith('file:')) return false;
  const file = fileURLToPath(url);
  if (!TYPESCRIPT.test(file) || (packageType(dirname(file)) ?? '') !== '') return false;
  try {
    return MODULE_SYNTAX.test(readFileSync(file, 'utf8'));
  } catch {
    return false;
  }
}

/**
 * @param {string} specifier
 * @param {object} context
 * @param {(specifier: string, context: object) => Promise<{ url: string, format?: string | null }>} nextResolve
 */
export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  const commonjs = resolved.format === 'commonjs' || resolved.format === 'commonjs-typescript';
  return commonjs && isAmbiguousModule(resolved.url) ? { ...resolved, format: 'module' } : resolved;
}
