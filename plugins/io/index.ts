import { definePlugin } from '../../kernel/definePlugin.ts';
import { addIoRoutes } from './ioRoutes.ts';

/** Import (CSV, JSON rows) and streamed export (csv, xlsx, pdf, json) of records, through the data engine. */
export default definePlugin({
  name: 'io',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['http.routes', 'data.engine', 'metadata.registry'],
  register(ctx) {
    addIoRoutes(ctx.resolve('http.routes'), ctx.resolve('data.engine'), ctx.resolve('metadata.registry'), ctx.log);
  },
});
