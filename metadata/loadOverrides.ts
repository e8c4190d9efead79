import { join } from 'node:path';
import type { CodedError } from '../kernel/errors.ts';
import { suggest } from '../kernel/suggest.ts';
import { checkObjectPatch } from './checkObjectPatch.ts';
import { describeIssues } from './describeIssues.ts';
import type { BookSource } from './loadBooks.ts';
import { metadataError } from './metadataError.ts';
import { asObjectPatch, objectPatchSchema } from './patchSchema.ts';
import { readDeclarationDir } from './readDeclarationDir.ts';
import type { PackageOverride, ResolvedObject } from './types.ts';
import { PARSE_ONCE } from '../kernel/parseOnce.ts';

/**
 * Reads overrides/objects/<object>.{json,ts} of every app: what a package changes on an object
 * another app declares (labels, field texts, option labels, views; never the schema).
 */
export async function loadOverrides(sources: BookSource[], objects: ReadonlyMap<string, ResolvedObject>, declared: ReadonlySet<string>): Promise<{ overrides: Map<string, PackageOverride[]>; errors: CodedError[] }> {
  const errors: CodedError[] = [];
  const overrides = new Map<string, PackageOverride[]>();
  for (const { dir, app } of sources) {
    const read = await readDeclarationDir(join(dir, 'overrides', 'objects'), 'object overrides');
    errors.push(...read.errors);
    const loaded: PackageOverride[] = [];
    for (const { file, stem, value } of read.declarations) {
      const parsed = objectPatchSchema.safeParse(value, PARSE_ONCE);
      const problems = parsed.success ? [] : describeIssues(objectPatchSchema, value, parsed.error.issues);
      const target = objects.get(stem);
      if (!declared.has(stem)) {
        const near = suggest(stem, [...declared]);
        problems.push({ path: '', reason: `overrides object '${stem}', which no app declares${near ? ` (did you mean '${near}'?)` : ''}` });
      } else if (target && target.app === app) {
        problems.push({ path: '', reason: `app '${app}' declares '${stem}' itself: change objects/${stem} instead of overriding it` });
      } else if (target && parsed.success) {
        problems.push(...checkObjectPatch(target, asObjectPatch(parsed.data), objects));
      }
      errors.push(...problems.map((p) => metadataError(file, p.path, p.reason)));
      if (parsed.success && problems.length === 0 && target) loaded.push({ object: stem, app, source: file, patch: asObjectPatch(parsed.data) });
    }
    overrides.set(app, loaded);
  }
  return { overrides, errors };
}
