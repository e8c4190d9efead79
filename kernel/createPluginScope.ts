// awilix's build without loadModules: the same container, minus a file-globbing library that costs
// about 45 ms of every boot.
import { asFunction, asValue, createContainer, type AwilixContainer } from 'awilix/browser';
import { capabilityRegistry, isCapabilityToken } from '../capabilities/registry.ts';
import { codedError } from './errors.ts';
import type { AnyPlugin, PerConsumer } from './definePlugin.ts';

export interface ProvidedService {
  provider: string;
  service: unknown;
}

export function isPerConsumer(value: unknown): value is PerConsumer<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as PerConsumer<unknown>).perConsumer === 'function';
}

/**
 * An awilix container holding only the capabilities a plugin declared (requires and optional,
 * where granted). Nothing else is registered in it, so an undeclared token cannot be resolved.
 */
export function createPluginScope(
  plugin: AnyPlugin,
  grants: 'all' | readonly string[],
  lookup: (token: string) => ProvidedService[],
): { container: AwilixContainer; resolve: (token: string) => unknown; has: (token: string) => boolean } {
  const container = createContainer({ strict: true });
  const declared = [...(plugin.requires ?? []), ...(plugin.optional ?? [])] as string[];
  const granted = (token: string) => grants === 'all' || grants.includes(token);

  for (const token of declared) {
    if (!isCapabilityToken(token) || !granted(token)) continue;
    const multi = capabilityRegistry[token].cardinality === 'multi';
    container.register(token, asFunction(() => {
      const built = lookup(token).map((p) => (isPerConsumer(p.service) ? p.service.perConsumer({ name: plugin.name }) : p.service));
      return multi ? built : built[0];
    }).singleton());
  }
  container.register('plugin', asValue({ name: plugin.name, version: plugin.version }));

  const resolve = (token: string): unknown => {
    if (!declared.includes(token)) {
      throw codedError('KERNEL_UNDECLARED_LOOKUP', {
        plugin: plugin.name, token,
        fix: `add '${token}' to the requires (or optional) of '${plugin.name}' and grant it in runtime.config`,
      });
    }
    if (!container.hasRegistration(token)) return undefined;
    return container.resolve(token);
  };
  const has = (token: string) => declared.includes(token) && container.hasRegistration(token) && lookup(token).length > 0;
  return { container, resolve, has };
}
