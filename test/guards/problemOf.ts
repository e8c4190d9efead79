import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'esbuild';
import type { Guard } from './guardList.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const count = (text: string, part: string) => text.split(part).length - 1;

/** Why the guard's mutation cannot be applied to the file as it is, or null. */
export function problemOf(guard: Guard, content: string | null): string | null {
  if (content === null) return `${guard.file} does not exist`;
  if (guard.original.includes('\n') || guard.mutation.includes('\n')) return 'original and mutation must be one line each';
  if (guard.original === guard.mutation) return 'the mutation changes nothing';
  const n = count(content, guard.original);
  if (n !== 1) return `the original text is found ${n} times in ${guard.file} (must be exactly once): update the guard list`;
  for (const test of guard.tests) if (!existsSync(join(ROOT, test))) return `test file ${test} does not exist`;
  try {
    transformSync(content.replace(guard.original, guard.mutation), { loader: 'ts', format: 'esm' });
  } catch (error) {
    return `the mutated file does not parse: ${(error as Error).message.split('\n')[0]}`;
  }
  return null;
}

