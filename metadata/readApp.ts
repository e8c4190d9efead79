import { readdir } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import type { CodedError } from '../kernel/errors.ts';
import { checkProtocol } from '../kernel/protocol.ts';
import type { AppManifest, ObjectDefinition } from './types.ts';
import { appManifestSchema, asAppManifest } from './appManifestSchema.ts';
import { describeIssues } from './describeIssues.ts';
import { metadataError } from './metadataError.ts';
import { SNAKE_CASE } from './names.ts';
import { parseObjectDefinition } from './parseObjectDefinition.ts';
import { readDeclarationFile } from './readDeclarationFile.ts';
import { PARSE_ONCE } from '../kernel/parseOnce.ts';

const OBJECT_EXTENSIONS = new Set(['.json', '.ts', '.mts', '.js', '.mjs']);
const IGNORED = /^\.|\.md$|\.d\.ts$|\.test\.[mc]?[jt]s$/;

export interface ObjectFile {
  file: string;
  /** The declared name when it is a string, even if the declaration has other problems. */
  name: string | null;
  definition: ObjectDefinition | null;
  /** Lookup references as written, checked across apps even when the declaration has other problems. */
  references: Array<{ field: string; reference: string }>;
}

export interface AppRead {
  dir: string;
  /** null when app.json is missing or invalid. */
  manifest: AppManifest | null;
  /** false when the app targets another protocol: its objects are not checked further. */
  compatible: boolean;
  objects: ObjectFile[];
  errors: CodedError[];
}

/** Reads one app directory: app.json and objects/*.{json,ts}, collecting every problem. */
export async function readApp(dir: string): Promise<AppRead> {
  const errors: CodedError[] = [];
  const manifestFile = join(dir, 'app.json');
  let manifest: AppManifest | null = null;
  let compatible = true;

  const read = await readDeclarationFile(manifestFile);
  if (!read.ok) {
    errors.push(metadataError(manifestFile, '', read.missing ? 'file not found: every app directory needs app.json with {name, version, protocol}' : read.reason));
  } else {
    const parsed = appManifestSchema.safeParse(read.value, PARSE_ONCE);
    if (parsed.success) {
      manifest = asAppManifest(parsed.data);
      const incompatible = checkProtocol('App package', manifest.name, manifest.version, manifest.protocol);
      if (incompatible) {
        errors.push(incompatible);
        compatible = false;
      }
    } else {
      for (const p of describeIssues(appManifestSchema, read.value, parsed.error.issues)) errors.push(metadataError(manifestFile, p.path, p.reason));
    }
  }

  const objectsDir = join(dir, 'objects');
  let entries: string[] = [];
  try {
    entries = (await readdir(objectsDir)).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') errors.push(metadataError(objectsDir, '', `could not be read: ${(error as Error).message}`));
  }

  const objects: ObjectFile[] = [];
  for (const entry of entries) {
    if (IGNORED.test(entry)) continue;
    const file = join(objectsDir, entry);
    const ext = extname(entry);
    if (!OBJECT_EXTENSIONS.has(ext)) {
      errors.push(metadataError(file, '', 'unsupported file: objects are declared in objects/<name>.json or objects/<name>.ts'));
      continue;
    }
    const content = await readDeclarationFile(file);
    if (!content.ok) {
      errors.push(metadataError(file, '', content.reason));
      continue;
    }
    const raw = content.value as { name?: unknown } | null;
    const name = typeof raw?.name === 'string' ? raw.name : null;
    const parsed = parseObjectDefinition(content.value);
    const problems = parsed.ok ? [] : parsed.problems;
    const stem = basename(entry, ext);
    if (name !== null && name !== stem) problems.push({ path: 'name', reason: `object '${name}' must be declared in a file named ${name}${ext}, not ${entry}` });
    if (compatible) errors.push(...problems.map((p) => metadataError(file, p.path, p.reason)));
    objects.push({ file, name, definition: parsed.ok && problems.length === 0 ? parsed.definition : null, references: lookupReferences(content.value) });
  }
  return { dir, manifest, compatible, objects, errors };
}

function lookupReferences(raw: unknown): Array<{ field: string; reference: string }> {
  const fields = (raw as { fields?: unknown } | null)?.fields;
  if (typeof fields !== 'object' || fields === null) return [];
  const out: Array<{ field: string; reference: string }> = [];
  for (const [field, declaration] of Object.entries(fields)) {
    const { type, reference } = (declaration ?? {}) as { type?: unknown; reference?: unknown };
    // A malformed name is already reported by the schema; only well-formed names are looked up.
    if (type === 'lookup' && typeof reference === 'string' && SNAKE_CASE.test(reference)) out.push({ field, reference });
  }
  return out;
}
