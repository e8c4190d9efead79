import { z } from 'zod';
import { definePlugin } from '../../kernel/definePlugin.ts';
import { consoleDir, readConsoleFiles, type ConsoleFiles } from './consoleFiles.ts';
import { addConsoleRoutes } from './consoleRoutes.ts';

const optionsSchema = z.strictObject({});

const states = new WeakMap<object, { files: ConsoleFiles | null }>();

/**
 * The console: a single-page app at /console/ (and the device-flow page at /device) for the people
 * who run the data. It is built by `npm run build` and talks only to the public /api/v1 with the
 * session cookie, so every screen goes through the same secured pipeline as any client.
 * On by default outside production (`plugins.console.enabled`).
 */
export default definePlugin({
  name: 'console',
  version: '16.0.0',
  kernel: '^16.0.0',
  requires: ['http.routes'],
  options: optionsSchema,
  register(ctx) {
    const state = { files: null as ConsoleFiles | null };
    states.set(ctx, state);
    addConsoleRoutes(ctx.resolve('http.routes'), () => state.files);
  },
  async start(ctx) {
    const state = states.get(ctx)!;
    const dir = consoleDir();
    state.files = await readConsoleFiles(dir);
    if (!state.files) ctx.log.warn({ dir }, 'the console is not built: /console/ answers 503 until `npm run build` is run');
  },
});
