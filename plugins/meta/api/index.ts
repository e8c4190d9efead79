import { definePlugin } from '../../../kernel/definePlugin.ts';
import { KernelBootError } from '../../../kernel/errors.ts';
import { metadataError } from '../../../metadata/metadataError.ts';
import { addMetaRoutes } from './metaRoutes.ts';
import { createMetaView } from './metaView.ts';
import { OVERLAY_APP_DIR } from './overlayObjects.ts';
import { createOverlayStore } from './overlayStore.ts';
import { createViewCatalog } from './viewCatalog.ts';

/**
 * The metadata API over HTTP. A plugin of its own beside `meta`: overlays are stored through the
 * data engine, which itself requires the registry `meta` provides, so `meta` cannot require it.
 */
export default definePlugin({
  name: 'meta-api',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['http.routes', 'metadata.registry', 'data.engine'],
  // Only to know whether declared actions are served: listed but not runnable would be declared-but-unenforced.
  // access.grants: views are served as the caller may use them (objects and fields it may read).
  optional: ['actions.registry', 'flows.runner', 'audit.record', 'access.grants'],
  register(ctx) {
    const metadata = ctx.resolve('metadata.registry');
    // Overlays and their history are engine-owned objects: the data engine keeps their tables in every environment.
    metadata.contributeApp(OVERLAY_APP_DIR);
    const catalog = createViewCatalog(ctx.has('access.grants') ? ctx.resolve('access.grants') ?? null : null);
    const view = createMetaView(metadata, createOverlayStore(ctx.resolve('data.engine')), catalog);
    addMetaRoutes(ctx.resolve('http.routes'), view, ctx.resolve('audit.record'));
  },
  start(ctx) {
    if (!ctx.has('flows.runner')) {
      const flows = ctx.resolve('metadata.registry').apps().flatMap((app) => app.flows);
      if (flows.length > 0) {
        throw new KernelBootError(flows.map((flow) => metadataError(flow.source, 'name',
          `flow '${flow.name}' is declared, but the flows plugin that runs flows is disabled: enable plugins.flows, or remove the app's flows/ files`)));
      }
    }
    if (ctx.has('actions.registry')) return;
    const declared = ctx.resolve('metadata.registry').apps().flatMap((app) => app.actions);
    if (declared.length === 0) return;
    throw new KernelBootError(declared.map((action) => metadataError(action.source, 'name',
      `action '${action.name}' is declared, but the actions plugin that serves actions is disabled: enable plugins.actions, or remove the app's actions/ files`)));
  },
});
