import { definePlugin } from '../../kernel/definePlugin.ts';
import { EXPORT_FORMATS } from './exportFormats.ts';
import { addIoRoutes } from './ioRoutes.ts';
import { renderExport } from './renderExport.ts';

/** Import (CSV, JSON rows) and streamed export (csv, xlsx, pdf, json) of records, through the data engine. */
export default definePlugin({
  name: 'io',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['http.routes', 'data.engine', 'metadata.registry'],
  // Every export is recorded in the audit trail (object, format, row count).
  optional: ['audit.record'],
  provides: ['io.export'],
  register(ctx) {
    ctx.provide('io.export', { formats: EXPORT_FORMATS, render: renderExport });
    addIoRoutes(ctx.resolve('http.routes'), ctx.resolve('data.engine'), ctx.resolve('metadata.registry'), ctx.log, ctx.resolve('audit.record'));
  },
});
