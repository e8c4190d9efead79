import { definePlugin } from '../../kernel/definePlugin.ts';
import { addBatchRoutes } from './batchRoutes.ts';
import { addDataRoutes } from './dataRoutes.ts';
import { addRecordRoutes } from './recordRoutes.ts';

/** The REST data API (/api/v1/data/...), generated from metadata and served by the data engine. */
export default definePlugin({
  name: 'rest',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['http.routes', 'data.engine', 'metadata.registry'],
  register(ctx) {
    addDataRoutes(ctx.resolve('http.routes'), ctx.resolve('data.engine'), ctx.resolve('metadata.registry'));
    addRecordRoutes(ctx.resolve('http.routes'), ctx.resolve('data.engine'), ctx.resolve('metadata.registry'));
    addBatchRoutes(ctx.resolve('http.routes'), ctx.resolve('data.engine'), ctx.resolve('metadata.registry'));
  },
});
