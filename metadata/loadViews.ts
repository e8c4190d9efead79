import { join } from 'node:path';
import type { CodedError } from '../kernel/errors.ts';
import { PARSE_ONCE } from '../kernel/parseOnce.ts';
import { suggest } from '../kernel/suggest.ts';
import { checkView } from './checkObjectPatch.ts';
import { describeIssues } from './describeIssues.ts';
import { metadataError, type MetadataProblem } from './metadataError.ts';
import { asViewDefinition, viewFileSchema } from './patchSchema.ts';
import { readDeclarationDir } from './readDeclarationDir.ts';
import type { ResolvedObject, ResolvedView } from './types.ts';

export interface ViewSource {
  dir: string;
  app: string;
}

/**
 * Reads views/<name>.{json,ts} of every app: the schema (an unknown key is refused at its path),
 * the object known, columns, sort and form fields checked against it and `where` by the data
 * engine's query parser (checkView, the same check as the object's `views` section). A view is named `<object>.<file name>`, the name
 * the sectioned metadata API gives the same entry; two apps declaring one name is a problem.
 */
export async function loadViews(sources: ViewSource[], objects: ReadonlyMap<string, ResolvedObject>): Promise<{ views: Map<string, ResolvedView[]>; errors: CodedError[] }> {
  const errors: CodedError[] = [];
  const views = new Map<string, ResolvedView[]>();
  const declaredIn = new Map<string, string>();
  /** The file of each object's view marked `default`. */
  const defaultOf = new Map<string, string>();
  for (const { dir, app } of sources) {
    const read = await readDeclarationDir(join(dir, 'views'), 'views');
    errors.push(...read.errors);
    const loaded: ResolvedView[] = [];
    for (const { file, stem, value } of read.declarations) {
      const parsed = viewFileSchema.safeParse(value, PARSE_ONCE);
      const problems: MetadataProblem[] = parsed.success ? [] : describeIssues(viewFileSchema, value, parsed.error.issues);
      if (parsed.success) {
        const { object: objectName, ...definition } = parsed.data;
        const object = objects.get(objectName);
        if (!object) {
          const near = suggest(objectName, [...objects.keys()]);
          problems.push({ path: 'object', reason: `unknown object '${objectName}'${near ? ` (did you mean '${near}'?)` : ''}` });
        } else {
          problems.push(...checkView(object, stem, asViewDefinition(definition), '', objects).map((p) => (p.path === 'name' ? { ...p, path: '(file name)' } : p)));
          const name = `${object.name}.${stem}`;
          const other = declaredIn.get(name);
          if (other) problems.push({ path: 'object', reason: `view '${name}' is already declared in ${other}` });
          else declaredIn.set(name, file);
          const marked = definition.default ? defaultOf.get(object.name) : undefined;
          if (marked) problems.push({ path: 'default', reason: `${object.name} has one default view, and ${marked} is marked default already` });
          else if (definition.default) defaultOf.set(object.name, file);
          if (problems.length === 0) loaded.push({ ...asViewDefinition(definition), name, object: object.name, source: file, app });
        }
      }
      errors.push(...problems.map((p) => metadataError(file, p.path, p.reason)));
    }
    views.set(app, loaded);
  }
  return { views, errors };
}
