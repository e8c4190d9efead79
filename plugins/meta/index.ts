import type { MetadataRegistry } from '../../capabilities/metadataRegistry.ts';
import { definePlugin } from '../../kernel/definePlugin.ts';
import { KernelBootError } from '../../kernel/errors.ts';
import type { LoadedApp, ResolvedObject } from '../../metadata/types.ts';
import { loadMetadata } from './loadMetadata.ts';
import { metadataVersion } from './metadataVersion.ts';

interface MetaState {
  apps: LoadedApp[];
  objects: Map<string, ResolvedObject>;
  version: string;
  /** App directories contributed by plugins during register. */
  contributed: string[];
  started: boolean;
}

const states = new WeakMap<object, MetaState>();

/**
 * Loads the configured metadata apps, and those plugins contribute, at start and serves them to
 * the rest of the runtime. Any problem in any app fails the boot, every problem listed with its
 * file and path. The `meta-api` plugin beside it serves the metadata over HTTP.
 */
export default definePlugin({
  name: 'meta',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['runtime.info'],
  provides: ['metadata.registry'],
  register(ctx) {
    const state: MetaState = { apps: [], objects: new Map(), version: '', contributed: [], started: false };
    states.set(ctx, state);
    const registry: MetadataRegistry = {
      objects: () => [...state.objects.values()],
      object: (name) => state.objects.get(name),
      apps: () => state.apps,
      version: () => state.version,
      contributeApp(dir) {
        if (state.started) throw new Error('metadata apps can only be contributed during register');
        state.contributed.push(dir);
      },
    };
    ctx.provide('metadata.registry', registry);
  },
  async start(ctx) {
    const state = states.get(ctx)!;
    state.started = true;
    const { apps, objects, errors } = await loadMetadata(ctx.resolve('runtime.info').apps, state.contributed);
    if (errors.length > 0) throw new KernelBootError(errors);
    state.apps = apps;
    state.objects = objects;
    state.version = metadataVersion(apps, [...objects.values()]);
    ctx.log.info({ apps: apps.map((a) => a.manifest.name), objects: objects.size, version: state.version }, 'metadata loaded');
  },
});
