import type { LoadedApp, ResolvedObject } from '../../../metadata/types.ts';
import type { DeclaredRollup } from './rollups.ts';

/** The apps' materialized datasets (docs/datasets.md, Materialized) as the rollups schema sync keeps. */
export function materializedDatasets(objects: readonly ResolvedObject[], apps: readonly Pick<LoadedApp, 'datasets'>[]): DeclaredRollup[] {
  const byName = new Map(objects.map((o) => [o.name, o]));
  const rollups: DeclaredRollup[] = [];
  for (const app of apps) {
    for (const dataset of app.datasets ?? []) {
      const object = byName.get(dataset.object);
      if (!dataset.materialized || !object) continue;
      rollups.push({ name: dataset.name, object, dimensions: dataset.dimensions.map((d) => d.field) });
    }
  }
  return rollups;
}
