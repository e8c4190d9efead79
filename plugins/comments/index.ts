import type { DataEngine } from '../../capabilities/dataEngine.ts';
import { definePlugin } from '../../kernel/definePlugin.ts';
import { addCommentRoutes, COMMENT_OBJECT } from './commentRoutes.ts';

/**
 * Comments (feeds) on records of objects with `enable.feeds` (on by default; false answers 403
 * FEEDS_DISABLED): /data/:object/:id/comments, rows in the engine-owned sys_comment, readable and
 * writable by whoever can read the record, mentions notified in the app. A record's comments go
 * with it when it is deleted for good (a delete without trash, or a purge), in the same transaction.
 * See docs/comments.md.
 */
export default definePlugin({
  name: 'comments',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['data.engine', 'data.database', 'metadata.registry', 'http.routes'],
  optional: ['notifications.send'],
  register(ctx) {
    const engine = ctx.resolve('data.engine');
    const database = ctx.resolve('data.database');
    const metadata = ctx.resolve('metadata.registry');
    addCommentRoutes(ctx.resolve('http.routes'), {
      engine,
      metadata,
      notifications: () => ctx.resolve('notifications.send'),
      log: ctx.log,
    });
    ctx.hook('data.afterDelete', async (event: { object: string; previous: { id: unknown }; trash?: boolean; ctx: { environmentId: string }; engine: DataEngine }) => {
      if (event.trash || metadata.object(event.object)?.system !== false) return;
      await database.withDatabase(event.ctx.environmentId, ({ knex }) =>
        knex(COMMENT_OBJECT).where({ object: event.object, record_id: String(event.previous.id) }).delete(), event.engine);
    });
  },
});
