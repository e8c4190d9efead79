import { capabilityRegistry, capabilityTokens, isCapabilityToken } from '../capabilities/registry.ts';
import { codedError, type CodedError } from './errors.ts';
import { orderPlugins } from './orderPlugins.ts';
import { KERNEL_PROVIDER, KERNEL_TOKENS, type PluginEntry } from './pluginEntry.ts';
import { checkProtocol } from './protocol.ts';
import { suggest } from './suggest.ts';
import { validateManifest } from './validateManifest.ts';
import { PARSE_ONCE } from './parseOnce.ts';

export interface GraphCheck {
  failures: CodedError[];
  /** Enabled plugins in boot order (empty when there are failures that prevent ordering). */
  order: string[];
  /** token -> provider plugin names (enabled ones, plus `kernel`). */
  providers: Map<string, string[]>;
  /** plugin name -> options parsed by the manifest's schema. */
  options: Map<string, unknown>;
}

const FIELDS = ['requires', 'optional', 'provides'] as const;

/**
 * Everything that can be known before running any plugin code: manifests, protocol,
 * tokens, providers, grants, options and order. Pure; every problem is reported.
 * `kernelProvided` lists the kernel tokens this host really serves (runtime.info only exists
 * when the host passes it), so a plugin requiring an absent one fails here, not on first use.
 */
export function checkGraph(entries: readonly PluginEntry[], kernelProvided: readonly string[] = KERNEL_TOKENS): GraphCheck {
  const failures: CodedError[] = [];
  const options = new Map<string, unknown>();
  const valid: PluginEntry[] = [];
  const seen = new Map<string, PluginEntry>();

  for (const entry of entries) {
    const shape = validateManifest(entry);
    if (shape.length > 0) {
      failures.push(...shape);
      continue;
    }
    const { name } = entry.manifest;
    const first = seen.get(name);
    if (first) {
      failures.push(codedError('KERNEL_DUPLICATE_PLUGIN', {
        plugin: name, sources: `${first.source}, ${entry.source}`,
        fix: 'remove one of them from runtime.config, or rename one plugin',
      }));
      continue;
    }
    seen.set(name, entry);
    valid.push(entry);
  }

  const enabled = valid.filter((e) => e.enabled);
  for (const entry of enabled) {
    const m = entry.manifest;
    const protocol = checkProtocol('Plugin', m.name, m.version, m.kernel);
    if (protocol) failures.push(protocol);
    for (const field of FIELDS) {
      for (const token of (m[field] ?? []) as string[]) {
        if (isCapabilityToken(token)) continue;
        const close = suggest(token, capabilityTokens());
        failures.push(codedError('KERNEL_UNKNOWN_TOKEN', {
          plugin: m.name, token, field,
          fix: close ? `did you mean '${close}'?` : `use one of the registered tokens (capabilities/registry.ts): ${capabilityTokens().join(', ')}`,
        }));
      }
    }
    if (m.options) {
      const parsed = m.options.safeParse(entry.options ?? {}, PARSE_ONCE);
      if (parsed.success) options.set(m.name, parsed.data);
      else {
        for (const issue of parsed.error.issues) {
          // An unknown key is reported at its own path, so the operator sees which key to remove.
          const keys = issue.code === 'unrecognized_keys' ? issue.keys : [undefined];
          for (const key of keys) {
            const parts = [...issue.path, ...(key === undefined ? [] : [key])];
            failures.push(codedError('KERNEL_INVALID_OPTIONS', {
              plugin: m.name, path: `plugins.${m.name}${parts.length ? '.' + parts.join('.') : ''}`,
              reason: key === undefined ? issue.message : `unknown option '${key}'`,
              fix: `correct plugins.${m.name} in runtime.config (see the plugin's documented options)`,
            }));
          }
        }
      }
    } else options.set(m.name, entry.options ?? {});
  }

  const providers = new Map<string, string[]>();
  for (const token of kernelProvided) providers.set(token, [KERNEL_PROVIDER]);
  const kernelOwned = new Set<string>(KERNEL_TOKENS);
  for (const entry of enabled) {
    for (const token of entry.manifest.provides ?? []) {
      if (!isCapabilityToken(token)) continue;
      // Kernel tokens stay the kernel's even when this host does not serve one.
      const list = kernelOwned.has(token) ? [KERNEL_PROVIDER] : providers.get(token) ?? [];
      const single = capabilityRegistry[token].cardinality === 'single';
      if (single && list.length > 0) {
        failures.push(codedError('KERNEL_DUPLICATE_PROVIDER', {
          token, provider: list[0], other: entry.manifest.name,
          fix: list[0] === KERNEL_PROVIDER
            ? `remove '${token}' from the provides of '${entry.manifest.name}': the kernel provides it`
            : `disable one of them (plugins.${entry.manifest.name}.enabled: false or plugins.${list[0]}.enabled: false)`,
        }));
        continue;
      }
      providers.set(token, [...list, entry.manifest.name]);
    }
  }

  const disabledProviders = new Map<string, string>();
  for (const entry of valid.filter((e) => !e.enabled)) {
    for (const token of entry.manifest.provides ?? []) if (!disabledProviders.has(token)) disabledProviders.set(token, entry.manifest.name);
  }

  for (const entry of enabled) {
    const m = entry.manifest;
    for (const token of m.requires ?? []) {
      if (!isCapabilityToken(token)) continue;
      const list = providers.get(token);
      if (!list || list.length === 0) {
        const disabled = disabledProviders.get(token);
        if (disabled) {
          failures.push(codedError('KERNEL_PROVIDER_DISABLED', {
            plugin: m.name, token, provider: disabled,
            fix: `set plugins.${disabled}.enabled to true, or disable '${m.name}'`,
          }));
        } else {
          failures.push(codedError('KERNEL_TOKEN_NOT_PROVIDED', {
            plugin: m.name, token,
            fix: kernelOwned.has(token)
              ? `the kernel serves '${token}' only when the host passes it to createKernel; pass it, or disable '${m.name}'`
              : `enable or install a plugin that provides '${token}' (${capabilityRegistry[token].description}), or disable '${m.name}'`,
          }));
        }
        continue;
      }
      if (entry.grants !== 'all' && !entry.grants.includes(token)) {
        failures.push(codedError('KERNEL_TOKEN_NOT_GRANTED', {
          plugin: m.name, token, provider: list.join(', '),
          fix: `add '${token}' to plugins.${m.name}.grants in runtime.config if you trust it with that capability`,
        }));
      }
    }
  }

  for (const entry of enabled) {
    if (entry.manifest.onBootFailure !== 'continue') continue;
    for (const token of entry.manifest.provides ?? []) {
      for (const other of enabled) {
        if (other === entry || !(other.manifest.requires ?? []).includes(token)) continue;
        failures.push(codedError('KERNEL_CONTINUE_NOT_ALLOWED', {
          plugin: entry.manifest.name, dependent: other.manifest.name, token,
          fix: `remove onBootFailure: 'continue' from '${entry.manifest.name}' (a plugin others require must boot)`,
        }));
      }
    }
  }

  const ordered = orderPlugins(
    enabled.map((e) => e.manifest),
    providers,
  );
  if (!ordered.ok) {
    failures.push(codedError('KERNEL_DEPENDENCY_CYCLE', {
      cycle: ordered.cycle.join(' -> '),
      // Optional dependencies order plugins too, so making one optional would not break the cycle.
      fix: 'move one of these capabilities into a plugin of its own, so that the dependencies run one way',
    }));
  }
  return { failures, order: ordered.ok ? ordered.order : [], providers, options };
}
