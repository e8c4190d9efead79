import type { AnyPlugin } from './definePlugin.ts';

/** A plugin as the host hands it to the kernel: the manifest plus what config says of it. */
export interface PluginEntry {
  manifest: AnyPlugin;
  enabled: boolean;
  /** `all` for first-party plugins; otherwise exactly the tokens config grants. */
  grants: 'all' | readonly string[];
  /** Raw options from config, validated against the manifest's schema at boot. */
  options?: unknown;
  /** Where it came from: `builtin`, a path or a package name. */
  source: string;
  /** Overrides the manifest's timeoutMs. */
  timeoutMs?: number;
}

/** Tokens the kernel provides itself; no plugin may provide them. */
export const KERNEL_PROVIDER = 'kernel';
export const KERNEL_TOKENS = ['hooks.registry', 'retention.register', 'runtime.info', 'secrets.keys', 'kernel.plugins'] as const;
