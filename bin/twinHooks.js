// @ts-check
/**
 * Module hooks for a runtime started from the compiled tree that loads an operator's TypeScript:
 * an import that resolves to one of the runtime's own sources gets its compiled twin instead,
 * the module instance the runtime already uses.
 */
import { pathToFileURL } from 'node:url';
import { compiledTree, readManifest } from './compiledTree.js';

/** @type {ReturnType<typeof compiledTree> | null} */
let tree = null;

/** @param {{ root: string }} data */
export function initialize(data) {
  const manifest = readManifest(data.root);
  tree = manifest ? compiledTree(data.root, manifest) : null;
}

/**
 * @param {string} specifier
 * @param {object} context
 * @param {(specifier: string, context: object) => Promise<{ url: string, format?: string | null }>} nextResolve
 */
export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  const twin = tree && resolved.url.startsWith('file:') ? tree.twinOf(resolved.url) : null;
  return twin ? { url: pathToFileURL(twin).href, format: 'module', shortCircuit: true } : resolved;
}
