import { loadApps, type LoadAppsResult } from '../../metadata/loadApps.ts';

/**
 * The metadata a boot loads: the configured app directories and those plugins contributed (whose
 * objects are the engine's system objects). The meta plugin's start and `osr doctor` both call it,
 * so the doctor finds every problem the boot would. It reads files and writes nothing.
 */
export async function loadMetadata(configured: readonly string[], contributed: readonly string[]): Promise<LoadAppsResult> {
  const result = await loadApps([...configured, ...contributed]);
  for (const app of result.apps) {
    if (!contributed.includes(app.dir)) continue;
    for (const object of app.objects) result.objects.set(object.name, Object.assign(object, { system: true }));
  }
  return result;
}
