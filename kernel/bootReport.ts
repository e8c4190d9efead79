import type { CodedError } from './errors.ts';

export interface BootReport {
  /** Root causes: every failure but the dependents a failure left unstarted. */
  roots: number;
  /** The report's lines: root causes first, then one line per root for the plugins it held back. */
  lines: string;
}

/**
 * The lines of a failed boot. A plugin that failed leaves every plugin depending on it, directly
 * or through another, unstarted (KERNEL_DEPENDENCY_FAILED each): those are folded into one line
 * naming the root, after the root causes, so the cause is what an operator reads first.
 */
export function bootReport(failures: readonly CodedError[]): BootReport {
  const held = new Map<string, string>();
  for (const f of failures) {
    if (f.code === 'KERNEL_DEPENDENCY_FAILED') held.set(String(f.details.plugin), String(f.details.provider));
  }
  const rootOf = (plugin: string): string => {
    const seen = new Set<string>();
    let at = plugin;
    while (held.has(at) && !seen.has(at)) {
      seen.add(at);
      at = held.get(at)!;
    }
    return at;
  };
  const byRoot = new Map<string, string[]>();
  for (const plugin of held.keys()) {
    const root = rootOf(plugin);
    byRoot.set(root, [...(byRoot.get(root) ?? []), plugin]);
  }
  const roots = failures.filter((f) => f.code !== 'KERNEL_DEPENDENCY_FAILED');
  const lines = [
    ...roots.map((f) => `  - [${f.code}] ${f.message}`),
    ...[...byRoot].map(([root, plugins]) =>
      `  - [KERNEL_DEPENDENCY_FAILED] not started because '${root}' failed: ${plugins.join(', ')} (${plugins.length} plugin${plugins.length === 1 ? '' : 's'}; they start once '${root}' does)`),
  ];
  return { roots: roots.length || failures.length, lines: lines.join('\n') };
}
