import type { AnyPlugin } from './definePlugin.ts';
import { KERNEL_PROVIDER } from './pluginEntry.ts';

export type OrderResult = { ok: true; order: string[] } | { ok: false; cycle: string[] };

/** Dependencies of a plugin: provider name -> the token that links them. */
function dependencies(plugin: AnyPlugin, providers: Map<string, string[]>): Map<string, string> {
  const deps = new Map<string, string>();
  for (const token of [...(plugin.requires ?? []), ...(plugin.optional ?? [])] as string[]) {
    for (const provider of providers.get(token) ?? []) {
      if (provider !== KERNEL_PROVIDER && provider !== plugin.name && !deps.has(provider)) deps.set(provider, token);
    }
  }
  return deps;
}

/**
 * Order plugins so every provider boots before its consumers (optional dependencies included).
 * Deterministic: the given order is walked, and a provider is pulled forward just before its
 * first consumer; with no dependencies the given order is kept. A cycle is returned as a path
 * such as `a (needs 'x') -> b (needs 'y') -> a`.
 */
export function orderPlugins(plugins: readonly AnyPlugin[], providers: Map<string, string[]>): OrderResult {
  const deps = new Map(plugins.map((p) => [p.name, dependencies(p, providers)]));
  const order: string[] = [];
  const done = new Set<string>();
  const visiting: string[] = [];

  const visit = (name: string): string[] | null => {
    if (done.has(name)) return null;
    const at = visiting.indexOf(name);
    if (at >= 0) {
      const path = visiting.slice(at);
      return [...path.map((n, i) => `${n} (needs '${deps.get(n)!.get(path[i + 1] ?? name)}')`), name];
    }
    visiting.push(name);
    for (const dep of deps.get(name)?.keys() ?? []) {
      if (!deps.has(dep)) continue;
      const cycle = visit(dep);
      if (cycle) return cycle;
    }
    visiting.pop();
    done.add(name);
    order.push(name);
    return null;
  };

  for (const plugin of plugins) {
    const cycle = visit(plugin.name);
    if (cycle) return { ok: false, cycle };
  }
  return { ok: true, order };
}
