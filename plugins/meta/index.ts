import type { MetadataRegistry } from '../../capabilities/metadataRegistry.ts';
import { definePlugin } from '../../kernel/definePlugin.ts';
import { KernelBootError } from '../../kernel/errors.ts';
import { loadApps } from '../../metadata/loadApps.ts';
import type { LoadedApp, ResolvedObject } from '../../metadata/types.ts';

const states = new WeakMap<object, { apps: LoadedApp[]; objects: Map<string, ResolvedObject> }>();

/**
 * Loads the configured metadata apps at start and serves them to the rest of the runtime.
 * Any problem in any app fails the boot, every problem listed with its file and path.
 */
export default definePlugin({
  name: 'meta',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['runtime.info'],
  provides: ['metadata.registry'],
  register(ctx) {
    const state = { apps: [] as LoadedApp[], objects: new Map<string, ResolvedObject>() };
    states.set(ctx, state);
    const registry: MetadataRegistry = {
      objects: () => [...state.objects.values()],
      object: (name) => state.objects.get(name),
      apps: () => state.apps,
    };
    ctx.provide('metadata.registry', registry);
  },
  async start(ctx) {
    const state = states.get(ctx)!;
    const { apps, objects, errors } = await loadApps(ctx.resolve('runtime.info').apps);
    if (errors.length > 0) throw new KernelBootError(errors);
    state.apps = apps;
    state.objects = objects;
    ctx.log.info({ apps: apps.map((a) => a.manifest.name), objects: objects.size }, 'metadata loaded');
  },
});
