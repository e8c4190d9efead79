import { definePlugin } from '../../kernel/definePlugin.ts';
import { addActivityRoutes } from './activityRoutes.ts';

/**
 * A record's activity timeline (`enable.activities`, on by default; false answers 403
 * ACTIVITIES_DISABLED): GET /data/:object/:id/activities merges the record's history, comments,
 * files, approval requests and emails sent about it, newest first, each filtered for the caller. It
 * owns no rows: it reads those of the data engine, the comments, files, approvals and email
 * plugins. See docs/activities.md.
 */
export default definePlugin({
  name: 'activities',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['data.engine', 'metadata.registry', 'http.routes'],
  register(ctx) {
    addActivityRoutes(ctx.resolve('http.routes'), { engine: ctx.resolve('data.engine'), metadata: ctx.resolve('metadata.registry') });
  },
});
