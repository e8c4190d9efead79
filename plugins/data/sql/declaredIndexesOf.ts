import type { LoadedApp, ResolvedObject } from '../../../metadata/types.ts';
import { declaredQueryIndexes, type DeclaredIndexes, type DeclaredQuery } from './declaredQueryIndexes.ts';
import { objectIndexes } from './desiredSchema.ts';

/**
 * The composite indexes the apps' declared list views and datasets need, by object name
 * (declaredQueryIndexes.ts): schema sync creates them beside the objects' own indexes.
 */
export function declaredIndexesOf(objects: readonly ResolvedObject[], apps: readonly Pick<LoadedApp, 'views' | 'datasets'>[]): Map<string, DeclaredIndexes> {
  const queries = new Map<string, DeclaredQuery[]>();
  const add = (object: string, query: DeclaredQuery) => {
    const list = queries.get(object);
    if (list) list.push(query);
    else queries.set(object, [query]);
  };
  for (const app of apps) {
    for (const view of app.views ?? []) add(view.object, { from: `view ${view.name}`, ...(view.where ? { where: view.where } : {}), ...(view.orderBy ? { orderBy: view.orderBy } : {}) });
    for (const dataset of app.datasets ?? []) {
      add(dataset.object, { from: `dataset ${dataset.name}`, ...(dataset.where ? { where: dataset.where } : {}), groupBy: dataset.dimensions.filter((d) => !d.dateGranularity).map((d) => d.field) });
    }
  }
  const declared = new Map<string, DeclaredIndexes>();
  for (const object of objects) {
    const list = queries.get(object.name);
    if (!list) continue;
    const found = declaredQueryIndexes(object, list, objectIndexes(object));
    if (found.indexes.length > 0 || found.skipped.length > 0) declared.set(object.name, found);
  }
  return declared;
}
