import type { LoadedApp, ResolvedObject } from '../metadata/types.ts';
import type { DeclaredIndexes } from '../plugins/data/sql/declaredQueryIndexes.ts';
import { declaredIndexesOf } from '../plugins/data/sql/declaredIndexesOf.ts';
import type { DoctorCheck } from './runDoctor.ts';

/**
 * The composite indexes schema sync makes for the apps' declared views and datasets, each with what
 * it serves; a warning for any declaration left without one (over the per-object bound).
 */
export function checkDeclaredIndexes(objects: readonly ResolvedObject[], apps: readonly LoadedApp[], declared: ReadonlyMap<string, DeclaredIndexes> = declaredIndexesOf(objects, apps)): DoctorCheck {
  const made: string[] = [];
  const skipped: string[] = [];
  for (const [object, { indexes, skipped: left }] of declared) {
    for (const index of indexes) made.push(`${object}(${index.columns.map((c, i) => (index.descending?.[i] ? `${c} desc` : c)).join(', ')}) for ${index.from.join(', ')}`);
    for (const skip of left) skipped.push(`${object}: ${skip.from} (${skip.reason})`);
  }
  if (skipped.length > 0) return { name: 'declared indexes', ok: true, warning: true, detail: `${made.length} made; no index for ${skipped.join('; ')}: declare one in the object's indexes` };
  return { name: 'declared indexes', ok: true, detail: made.length === 0 ? 'no declared view or dataset needs an index of its own' : `${made.length}: ${made.join('; ')}` };
}
