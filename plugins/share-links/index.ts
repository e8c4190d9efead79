import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../kernel/definePlugin.ts';
import { WindowRateLimiter } from '../../kernel/windowRateLimiter.ts';
import { createShareLinks, SHARE_LINK } from './createShareLinks.ts';
import { shareLinkOptionsSchema } from './shareLinkOptions.ts';
import { addShareLinkRoutes } from './shareLinkRoutes.ts';

const limiters = new WeakMap<object, WindowRateLimiter>();

/**
 * Share links: an anonymous, read-only link to one record, re-checked at every read against what
 * its creator may read now (docs/share-links.md). Only the token's hash is stored; reads are
 * rate-limited per client IP; creation and revocation go to the audit trail.
 */
export default definePlugin({
  name: 'share-links',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['http.routes', 'data.engine', 'metadata.registry', 'access.grants', 'runtime.info'],
  // A link is read as its creator, whom the identity service resolves: without it, no link is served.
  optional: ['auth.identity', 'audit.record', 'events.counter'],
  options: shareLinkOptionsSchema,
  register(ctx) {
    const identity = ctx.resolve('auth.identity');
    if (!identity) {
      ctx.log.warn('share-links: no plugin provides auth.identity, so no share link is served');
      return;
    }
    const metadata = ctx.resolve('metadata.registry');
    metadata.contributeApp(fileURLToPath(new URL('./system-app', import.meta.url)));
    ctx.retention({
      name: 'share-links.expired', object: SHARE_LINK, keepDays: 30, action: 'delete', ageField: 'expires_at',
      description: 'Share links, 30 days after they expired or were revoked (a revoked link expires when revoked).',
    });
    const limiter = new WindowRateLimiter('share-link');
    limiters.set(ctx, limiter);
    const links = createShareLinks({
      engine: ctx.resolve('data.engine'), metadata, identity, grants: ctx.resolve('access.grants'),
      audit: ctx.resolve('audit.record'), options: ctx.options,
    });
    addShareLinkRoutes(ctx.resolve('http.routes'), {
      links, metadata, limiter, rule: ctx.options.rateLimit, defaultEnvironment: ctx.resolve('runtime.info').defaultEnvironment, publicOrigin: ctx.options.publicOrigin?.replace(/\/$/, ''),
    });
  },
  start(ctx) {
    if (!limiters.has(ctx)) return;
    const counter = ctx.resolve('events.counter');
    if (counter?.shared) {
      const onError = (error: unknown) => ctx.log.warn({ err: error }, 'share-links: the shared rate-limit count in Redis failed; counting in this process meanwhile');
      limiters.get(ctx)!.share(counter, 'osr:share-link:', onError);
    }
  },
  async stop(ctx) {
    await limiters.get(ctx)?.close();
  },
});
