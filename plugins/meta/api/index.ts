import { definePlugin } from '../../../kernel/definePlugin.ts';
import { addMetaRoutes } from './metaRoutes.ts';
import { createMetaView } from './metaView.ts';
import { OVERLAY_APP_DIR } from './overlayObjects.ts';
import { createOverlayStore } from './overlayStore.ts';

/**
 * The metadata API over HTTP. A plugin of its own beside `meta`: overlays are stored through the
 * data engine, which itself requires the registry `meta` provides, so `meta` cannot require it.
 */
export default definePlugin({
  name: 'meta-api',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['http.routes', 'metadata.registry', 'data.engine'],
  register(ctx) {
    const metadata = ctx.resolve('metadata.registry');
    // Overlays and their history are engine-owned objects: the data engine keeps their tables in every environment.
    metadata.contributeApp(OVERLAY_APP_DIR);
    const view = createMetaView(metadata, createOverlayStore(ctx.resolve('data.engine')));
    addMetaRoutes(ctx.resolve('http.routes'), view);
  },
});
