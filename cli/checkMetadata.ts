import type { CodedError } from '../kernel/errors.ts';
import type { PluginEntry } from '../kernel/pluginEntry.ts';
import type { ResolvedFlow } from '../metadata/flowTypes.ts';
import type { LoadedApp, ResolvedObject } from '../metadata/types.ts';
import { policyErrors } from '../plugins/data/policyErrors.ts';
import { SYSTEM_APP_DIR } from '../plugins/data/systemApp.ts';
import { loadMetadata } from '../plugins/meta/loadMetadata.ts';
import type { DoctorCheck } from './runDoctor.ts';

/**
 * The metadata a boot would load (configured apps, and the system app the data plugin
 * contributes), through the same loader and the data plugin's row-policy check. Apps on another
 * protocol are returned apart, for the protocol check.
 */
export async function checkMetadata(apps: readonly string[], entries: readonly PluginEntry[]): Promise<{ check: DoctorCheck; protocol: CodedError[]; objects: ResolvedObject[] | null; flows: ResolvedFlow[]; apps: LoadedApp[] }> {
  const enabled = (name: string) => entries.some((e) => e.enabled && e.manifest?.name === name);
  if (!enabled('meta')) return { check: { name: 'metadata', ok: true, detail: 'the meta plugin is disabled: no metadata is loaded' }, protocol: [], objects: null, flows: [], apps: [] };
  const contributed = enabled('data') ? [SYSTEM_APP_DIR] : [];
  const loaded = await loadMetadata(apps, contributed);
  const protocol = loaded.errors.filter((e) => e.code === 'KERNEL_PROTOCOL_INCOMPATIBLE');
  const errors = [
    ...loaded.errors.filter((e) => e.code !== 'KERNEL_PROTOCOL_INCOMPATIBLE'),
    ...(enabled('data') && loaded.errors.length === 0 ? policyErrors([...loaded.objects.values()]) : []),
  ];
  const own = loaded.apps.filter((a) => !contributed.includes(a.dir));
  const check: DoctorCheck = errors.length === 0
    ? { name: 'metadata', ok: true, detail: `${own.length} app(s), ${[...loaded.objects.values()].filter((o) => !o.system).length} object(s) load` }
    : { name: 'metadata', ok: false, detail: `${errors.length} problem(s) in the metadata`, problems: errors.map((e) => ({ code: e.code, message: e.message })) };
  return { check, protocol, objects: check.ok && loaded.errors.length === 0 ? [...loaded.objects.values()] : null, flows: loaded.apps.flatMap((a) => a.flows), apps: loaded.apps };
}
