import { join } from 'node:path';
import type { CodedError } from '../kernel/errors.ts';
import { suggest } from '../kernel/suggest.ts';
import { asBookDefinition, bookDefinitionSchema } from './bookSchema.ts';
import { checkBookSemantics } from './checkBookSemantics.ts';
import { describeIssues } from './describeIssues.ts';
import { metadataError } from './metadataError.ts';
import { humanize } from './names.ts';
import { readDeclarationDir } from './readDeclarationDir.ts';
import type { ResolvedBook } from './types.ts';
import { PARSE_ONCE } from '../kernel/parseOnce.ts';

export interface BookSource {
  dir: string;
  app: string;
}

/**
 * Reads books/<name>.{json,ts} of every app: schema, node rules, book names unique across apps,
 * pages pointing to loaded objects. Returns the valid books by app and every problem.
 */
export async function loadBooks(sources: BookSource[], knownObjects: ReadonlySet<string>): Promise<{ books: Map<string, ResolvedBook[]>; errors: CodedError[] }> {
  const errors: CodedError[] = [];
  const books = new Map<string, ResolvedBook[]>();
  const declaredIn = new Map<string, string>();
  for (const { dir, app } of sources) {
    const read = await readDeclarationDir(join(dir, 'books'), 'books');
    errors.push(...read.errors);
    const loaded: ResolvedBook[] = [];
    for (const { file, stem, ext, value } of read.declarations) {
      const parsed = bookDefinitionSchema.safeParse(value, PARSE_ONCE);
      const problems = parsed.success ? [] : describeIssues(bookDefinitionSchema, value, parsed.error.issues);
      const semantics = checkBookSemantics(value);
      problems.push(...semantics.problems);
      const name = (value as { name?: unknown } | null)?.name;
      if (typeof name === 'string' && name !== stem) problems.push({ path: 'name', reason: `book '${name}' must be declared in a file named ${name}${ext}` });
      if (typeof name === 'string') {
        const other = declaredIn.get(name);
        if (other) problems.push({ path: 'name', reason: `book '${name}' is already declared in ${other}` });
        else declaredIn.set(name, file);
      }
      for (const { path, object } of semantics.references) {
        if (knownObjects.has(object)) continue;
        const near = suggest(object, [...knownObjects]);
        problems.push({ path, reason: `unknown object '${object}'${near ? ` (did you mean '${near}'?)` : `; loaded objects: ${[...knownObjects].sort().join(', ') || 'none'}`}` });
      }
      errors.push(...problems.map((p) => metadataError(file, p.path, p.reason)));
      if (parsed.success && problems.length === 0) {
        const definition = asBookDefinition(parsed.data);
        loaded.push({ ...definition, label: definition.label ?? humanize(definition.name), source: file, app });
      }
    }
    books.set(app, loaded);
  }
  return { books, errors };
}
