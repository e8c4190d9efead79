import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { definePlugin } from '../../kernel/definePlugin.ts';
import { createFormsService, type FormsService } from './createFormsService.ts';
import { addFormRoutes } from './formRoutes.ts';

const optionsSchema = z.strictObject({
  /** Prefix of the rate-limit keys in Redis (default `osr:forms:`): deployments sharing one Redis keep their counts apart. */
  redisKeyPrefix: z.string().min(1).max(100).default('osr:forms:'),
});

const services = new WeakMap<object, FormsService>();

/**
 * Public forms declared by apps (forms/<slug>.json): the schema at GET /api/v1/forms/<slug>,
 * submissions at POST /api/v1/forms/<slug>/submit (one record through the data engine, as the
 * form's runAs user or in a context limited to the form), and an HTML page at /f/<slug>.
 * See docs/forms.md.
 */
export default definePlugin({
  name: 'forms',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['data.engine', 'data.database', 'access.grants', 'metadata.registry', 'http.routes', 'runtime.info'],
  optional: ['events.counter'],
  options: optionsSchema,
  register(ctx) {
    services.set(ctx, createFormsService(ctx.resolve('metadata.registry'), ctx.resolve('data.engine'), ctx.resolve('data.database'), ctx.resolve('access.grants'), ctx.log));
  },
  async start(ctx) {
    const service = services.get(ctx)!;
    const info = ctx.resolve('runtime.info');
    const counter = ctx.has('events.counter') ? ctx.resolve('events.counter') : null;
    if (counter?.shared) {
      const onError = (error: unknown) => ctx.log.warn({ err: error }, 'forms: the shared rate-limit count in Redis failed; counting in this process meanwhile');
      service.limiter.share(counter, ctx.options.redisKeyPrefix, onError);
    }
    const [script, style, icon] = await Promise.all(['form.js', 'form.css', 'icon.svg'].map((file) => readFile(new URL(`./page/${file}`, import.meta.url), 'utf8')));
    addFormRoutes(ctx.resolve('http.routes'), service, { script: script!, style: style!, icon: icon! }, info.defaultEnvironment);
    ctx.log.info({ forms: service.list().map((f) => f.slug) }, 'forms loaded');
  },
  async stop(ctx) {
    await services.get(ctx)?.limiter.close();
  },
});
