import { readFile } from 'node:fs/promises';
import { importModule } from '../kernel/importModule.ts';

export type FileRead = { ok: true; value: unknown } | { ok: false; missing: boolean; reason: string };

/** Reads a JSON file, or the default export of a TypeScript/JavaScript module. */
export async function readDeclarationFile(file: string): Promise<FileRead> {
  if (file.endsWith('.json')) return readJson(file);
  try {
    const module = (await importModule(file)) as { default?: unknown };
    if (module.default === undefined) return { ok: false, missing: false, reason: 'has no default export: export default defineObject({...})' };
    return { ok: true, value: module.default };
  } catch (error) {
    return { ok: false, missing: false, reason: `could not be loaded: ${(error as Error).message}` };
  }
}

async function readJson(file: string): Promise<FileRead> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    return { ok: false, missing, reason: missing ? 'file not found' : `could not be read: ${(error as Error).message}` };
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, missing: false, reason: `is not valid JSON: ${(error as Error).message}` };
  }
}
