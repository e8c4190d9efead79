import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { importModule } from '../kernel/importModule.ts';
import type { AnyPlugin } from '../kernel/definePlugin.ts';
import { codedError, KernelBootError, type CodedError } from '../kernel/errors.ts';
import type { PluginEntry } from '../kernel/pluginEntry.ts';
import { PLUGIN_ENTRY_KEYS, type PluginConfigEntry } from './configSchema.ts';
import type { ResolvedConfig } from './loadConfig.ts';

/** A first-party plugin as the host knows it. */
export interface BuiltinPlugin {
  manifest: AnyPlugin;
  /** Opt-in plugins are off until config enables them; a function decides from the rest of config. */
  enabledByDefault: boolean | ((config: ResolvedConfig) => boolean);
  /** Options the host derives from top-level config (for example `server` for http). */
  optionsFrom?: (config: ResolvedConfig) => Record<string, unknown>;
}

function optionsOf(entry: PluginConfigEntry | undefined): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(entry ?? {})) if (!(PLUGIN_ENTRY_KEYS as readonly string[]).includes(key)) options[key] = value;
  return options;
}

function fileOf(path: string): string {
  if (existsSync(path) && statSync(path).isDirectory()) {
    const candidate = ['index.ts', 'index.js', 'index.mjs'].map((f) => join(path, f)).find((f) => existsSync(f));
    return candidate ?? join(path, 'index.ts');
  }
  return path;
}

async function importPlugin(name: string, entry: PluginConfigEntry, root: string): Promise<AnyPlugin> {
  const source = entry.path ?? entry.package!;
  try {
    const target = entry.path ? fileOf(resolve(root, entry.path)) : createRequire(join(root, 'package.json')).resolve(entry.package!);
    const mod = (await importModule(target)) as { default?: AnyPlugin; plugin?: AnyPlugin };
    const manifest = mod.default ?? mod.plugin;
    if (!manifest || typeof manifest !== 'object') throw new Error('the module has no default export (export default definePlugin({...}))');
    return manifest;
  } catch (error) {
    throw codedError('KERNEL_PLUGIN_LOAD_FAILED', {
      plugin: name, source, reason: (error as Error).message,
      fix: entry.path ? `check plugins.${name}.path (resolved from ${root})` : `install the package: npm install ${entry.package}`,
    });
  }
}

/** Turn config and the first-party list into kernel entries; third-party plugins are imported here. */
export async function resolvePlugins(config: ResolvedConfig, builtins: readonly BuiltinPlugin[]): Promise<PluginEntry[]> {
  const failures: CodedError[] = [];
  const entries: PluginEntry[] = [];
  const byName = new Map(builtins.map((b) => [b.manifest.name, b]));

  for (const builtin of builtins) {
    const cfg = config.plugins[builtin.manifest.name];
    if (cfg?.path || cfg?.package) {
      failures.push(codedError('CONFIG_INVALID', { path: `plugins.${builtin.manifest.name}`, reason: `'${builtin.manifest.name}' is a built-in plugin; path and package are for third-party plugins` }));
      continue;
    }
    const entry: PluginEntry = {
      manifest: builtin.manifest,
      enabled: cfg?.enabled ?? (typeof builtin.enabledByDefault === 'function' ? builtin.enabledByDefault(config) : builtin.enabledByDefault),
      grants: cfg?.grants ?? 'all',
      options: { ...(builtin.optionsFrom?.(config) ?? {}), ...optionsOf(cfg) },
      source: 'builtin',
    };
    if (cfg?.timeoutMs !== undefined) entry.timeoutMs = cfg.timeoutMs;
    entries.push(entry);
  }

  for (const [name, cfg] of Object.entries(config.plugins)) {
    if (byName.has(name)) continue;
    if (!cfg.path && !cfg.package) {
      failures.push(codedError('CONFIG_INVALID', {
        path: `plugins.${name}`,
        reason: `there is no built-in plugin '${name}' (built-in: ${[...byName.keys()].join(', ')}); set path or package to load a third-party plugin`,
      }));
      continue;
    }
    try {
      const manifest = await importPlugin(name, cfg, config.root);
      if (manifest.name !== name) {
        failures.push(codedError('CONFIG_INVALID', { path: `plugins.${name}`, reason: `the module at ${cfg.path ?? cfg.package} declares the plugin '${manifest.name}'; use that name as the key` }));
        continue;
      }
      const entry: PluginEntry = {
        manifest,
        enabled: cfg.enabled ?? true,
        grants: cfg.grants ?? [],
        options: optionsOf(cfg),
        source: cfg.path ? resolve(config.root, cfg.path) : cfg.package!,
      };
      if (cfg.timeoutMs !== undefined) entry.timeoutMs = cfg.timeoutMs;
      entries.push(entry);
    } catch (error) {
      failures.push(error as CodedError);
    }
  }
  if (failures.length > 0) throw new KernelBootError(failures);
  return entries;
}
