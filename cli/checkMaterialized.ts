import type { LoadedApp, ResolvedObject } from '../metadata/types.ts';
import { materializedDatasets } from '../plugins/data/sql/materializedDatasets.ts';
import { rollupTable } from '../plugins/data/sql/rollups.ts';
import type { DoctorCheck } from './runDoctor.ts';

/** The materialized datasets whose counts the database keeps (docs/datasets.md, Materialized): null when there are none. */
export function checkMaterialized(objects: readonly ResolvedObject[], apps: readonly LoadedApp[], schemaSync: string): DoctorCheck | null {
  const rollups = materializedDatasets(objects, apps);
  if (rollups.length === 0) return null;
  const list = rollups.map((r) => `${r.name}: ${r.object.name} by ${r.dimensions.join(', ')} in ${rollupTable(r.name)}`).join('; ');
  if (schemaSync === 'off') return { name: 'materialized datasets', ok: true, warning: true, detail: `${rollups.length} (${list}); schemaSync 'off': used only where an earlier boot made them as declared` };
  return { name: 'materialized datasets', ok: true, detail: `${rollups.length}: ${list}` };
}
