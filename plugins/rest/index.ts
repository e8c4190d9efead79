import { definePlugin } from '../../kernel/definePlugin.ts';
import { addBatchRoutes } from './batchRoutes.ts';
import { addDataRoutes } from './dataRoutes.ts';
import { addMetricsRoutes } from './metricsRoutes.ts';
import { addRecordRoutes } from './recordRoutes.ts';

/** The REST data API (/api/v1/data/...), generated from metadata and served by the data engine. */
export default definePlugin({
  name: 'rest',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['http.routes', 'data.engine', 'metadata.registry'],
  optional: ['data.indexAdvice'],
  register(ctx) {
    addDataRoutes(ctx.resolve('http.routes'), ctx.resolve('data.engine'), ctx.resolve('metadata.registry'));
    addRecordRoutes(ctx.resolve('http.routes'), ctx.resolve('data.engine'), ctx.resolve('metadata.registry'));
    addBatchRoutes(ctx.resolve('http.routes'), ctx.resolve('data.engine'), ctx.resolve('metadata.registry'));
    const advice = ctx.resolve('data.indexAdvice');
    if (advice) addMetricsRoutes(ctx.resolve('http.routes'), advice);
  },
});
