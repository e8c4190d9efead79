import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HttpRoutes } from '../../capabilities/httpRoutes.ts';
import { codedError } from '../../kernel/errors.ts';
import { ASSET_BASE } from './consoleBuild.js';
import type { ConsoleFiles } from './consoleFiles.ts';
import { ASSET_CACHE, CONSOLE_CSP, pickEncoding } from './consolePolicy.ts';

const tags = ['console'];
const NOT_BUILT = 'The console is not built: run `npm run build`, then restart.';

function secure(reply: FastifyReply): FastifyReply {
  return reply.header('content-security-policy', CONSOLE_CSP).header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'same-origin').header('x-frame-options', 'DENY');
}

/**
 * The console's page and files. The page is the same at every path below /console/ (the app
 * routes in the browser) and at /device, never cached; the files are cached for a year under
 * their hashed names and sent brotli- or gzip-compressed as the browser accepts. Nothing here reads
 * data: the app calls /api/v1 with the session cookie like any client.
 */
export function addConsoleRoutes(routes: HttpRoutes, files: () => ConsoleFiles | null): void {
  const page = (request: FastifyRequest, reply: FastifyReply) => {
    // The files' folder is not a page of the app: a path there naming no file is a 404.
    if (request.url.startsWith(ASSET_BASE)) throw codedError('NOT_FOUND', { what: 'Console file' });
    const built = files();
    secure(reply).header('cache-control', 'no-store');
    if (!built) return reply.code(503).type('text/plain; charset=utf-8').send(NOT_BUILT);
    return reply.type('text/html; charset=utf-8').send(built.page);
  };
  for (const path of ['/console', '/console/*', '/device']) {
    routes.add({
      method: 'GET', path, root: true, public: true, tags, contentType: 'text/html', errorStatuses: [503],
      summary: path === '/device' ? 'The device-flow verification page of the console' : 'The console: a web app over the public API (docs/console.md)',
      handler: page,
    });
  }
  routes.add({
    method: 'GET', path: `${ASSET_BASE}:file`, root: true, public: true, tags, contentType: 'text/javascript', errorStatuses: [404],
    summary: 'A built file of the console, named by its content hash',
    schema: { params: { type: 'object', properties: { file: { type: 'string', maxLength: 200 } }, required: ['file'] } },
    handler: (request, reply) => {
      const name = (request.params as { file: string }).file;
      const file = files()?.assets.get(name);
      if (!file) throw codedError('NOT_FOUND', { what: `Console file '${name.slice(0, 200)}'` });
      const encoding = pickEncoding(request.headers['accept-encoding']);
      secure(reply).header('cache-control', ASSET_CACHE).header('vary', 'accept-encoding').type(file.type);
      if (encoding !== 'identity') reply.header('content-encoding', encoding === 'brotli' ? 'br' : 'gzip');
      return reply.send(file[encoding]);
    },
  });
}
