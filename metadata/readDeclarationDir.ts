import { readdir } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import type { CodedError } from '../kernel/errors.ts';
import { metadataError } from './metadataError.ts';
import { readDeclarationFile } from './readDeclarationFile.ts';

const EXTENSIONS = new Set(['.json', '.ts', '.mts', '.js', '.mjs']);
const IGNORED = /^\.|\.md$|\.d\.ts$|\.test\.[mc]?[jt]s$/;

export interface Declaration {
  file: string;
  /** File name without its extension: the declared name must equal it. */
  stem: string;
  ext: string;
  value: unknown;
}

/**
 * Every declaration file of one directory of an app (`books/`, `overrides/objects/`), sorted by
 * name. A missing directory holds nothing; an unreadable file or one of another kind is a problem.
 */
export async function readDeclarationDir(dir: string, what: string): Promise<{ declarations: Declaration[]; errors: CodedError[] }> {
  const errors: CodedError[] = [];
  let entries: string[] = [];
  try {
    entries = (await readdir(dir)).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') errors.push(metadataError(dir, '', `could not be read: ${(error as Error).message}`));
  }
  const declarations: Declaration[] = [];
  for (const entry of entries) {
    if (IGNORED.test(entry)) continue;
    const file = join(dir, entry);
    const ext = extname(entry);
    if (!EXTENSIONS.has(ext)) {
      errors.push(metadataError(file, '', `unsupported file: ${what} are declared in <name>.json or <name>.ts`));
      continue;
    }
    const content = await readDeclarationFile(file);
    if (!content.ok) errors.push(metadataError(file, '', content.reason));
    else declarations.push({ file, stem: basename(entry, ext), ext, value: content.value });
  }
  return { declarations, errors };
}
