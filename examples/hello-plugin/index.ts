// A plugin imports the runtime only through its published entry point, wherever it lives.
import { definePlugin, z } from 'osr-runtime/kernel';

/**
 * A third-party plugin: it requires one capability (http.routes), declares a route and a hook,
 * and takes one option. It imports nothing but the kernel's public API (`osr-runtime/kernel`).
 */
export default definePlugin({
  name: 'hello',
  version: '1.0.0',
  kernel: '^16.0.0',
  requires: ['http.routes'],
  options: z.strictObject({ greeting: z.string().default('Hello') }),
  register(ctx) {
    const created = new Map<string, number>();
    ctx.hook('data.afterInsert', (event: { object: string }) => {
      created.set(event.object, (created.get(event.object) ?? 0) + 1);
    });
    ctx.resolve('http.routes').add({
      method: 'GET',
      path: '/hello',
      public: true,
      summary: 'Greeting from the example plugin, with the records created since start',
      tags: ['examples'],
      handler: () => ({ greeting: ctx.options.greeting, created: Object.fromEntries(created) }),
    });
  },
});
