import { pathToFileURL } from 'node:url';

/** What bin/osr.js provides when the runtime runs from its compiled tree (bin/compiledTree.js). */
interface CompiledTree {
  twinOf(file: string): string | null;
  enableSourceLoading(): Promise<void>;
}

const TREE_KEY = Symbol.for('osr.compiledTree');

const compiledTree = (): CompiledTree | undefined => (globalThis as Record<symbol, unknown>)[TREE_KEY] as CompiledTree | undefined;

/** Whether this process runs the runtime from its compiled tree (dist/) rather than its sources. */
export function runsCompiled(): boolean {
  return compiledTree() !== undefined;
}

/**
 * Imports a module an operator names (config file, plugin, declaration). From the sources, tsx
 * is already loading TypeScript. From the compiled tree, a file of the tree is taken from its
 * compiled twin, and anything else (an operator's own TypeScript or JavaScript, which may import
 * the runtime's sources) first turns on the TypeScript loader.
 */
export async function importModule(file: string): Promise<unknown> {
  const tree = compiledTree();
  if (!tree) return import(pathToFileURL(file).href);
  const twin = tree.twinOf(file);
  if (twin) return import(pathToFileURL(twin).href);
  await tree.enableSourceLoading();
  return import(pathToFileURL(file).href);
}
