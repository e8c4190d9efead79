import { checkGraph } from '../kernel/checkGraph.ts';
import { BUILTIN_PLUGINS } from '../plugins/builtin.ts';
import { loadConfig, type LoadConfigOptions } from '../runtime/loadConfig.ts';
import { resolvePlugins } from '../runtime/resolvePlugins.ts';

export interface PluginRow {
  name: string;
  version: string;
  source: string;
  state: 'enabled' | 'disabled' | 'problem';
  requires: string[];
  optional: string[];
  provides: string[];
  problems: string[];
}

/** The configured plugins, their tokens and whether they would boot. */
export async function listPlugins(options: LoadConfigOptions): Promise<PluginRow[]> {
  const config = await loadConfig(options);
  const entries = await resolvePlugins(config, BUILTIN_PLUGINS);
  const graph = checkGraph(entries);
  return entries.map((e) => {
    const problems = graph.failures.filter((f) => f.details.plugin === e.manifest.name).map((f) => `[${f.code}] ${f.message}`);
    return {
      name: e.manifest.name,
      version: e.manifest.version,
      source: e.source,
      state: !e.enabled ? 'disabled' : problems.length > 0 ? 'problem' : 'enabled',
      requires: [...(e.manifest.requires ?? [])],
      optional: [...(e.manifest.optional ?? [])],
      provides: [...(e.manifest.provides ?? [])],
      problems,
    };
  });
}

export function formatPlugins(rows: PluginRow[]): string {
  return rows.map((r) => [
    `${r.name}@${r.version}  ${r.state}  (${r.source})`,
    `  requires: ${r.requires.join(', ') || '-'}${r.optional.length ? `  optional: ${r.optional.join(', ')}` : ''}`,
    `  provides: ${r.provides.join(', ') || '-'}`,
    ...r.problems.map((p) => `  ${p}`),
  ].join('\n')).join('\n');
}
