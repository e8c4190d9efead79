import type { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { codedError } from '../../kernel/errors.ts';

/** The request's bytes, failing with PAYLOAD_TOO_LARGE past the limit; the socket is left open so the 413 can be written. */
async function* bounded(payload: Readable, limit: number): AsyncGenerator<Buffer> {
  let seen = 0;
  for await (const chunk of payload.iterator({ destroyOnReturn: false })) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    seen += bytes.length;
    if (seen > limit) throw codedError('PAYLOAD_TOO_LARGE', { limit });
    yield bytes;
  }
}

/**
 * Bodies of these media types reach the handlers of `app` (an encapsulated context holding only
 * the routes that asked for them) unread: request.body is an AsyncIterable of the bytes, bounded
 * by the route's body limit, so the handler reads the body as it arrives instead of after it.
 */
export function addStreamedBody(app: FastifyInstance, types: readonly string[], limit: number): void {
  // A route may read JSON as bytes too (a signed hook checks its signature over the raw body).
  if (types.includes('application/json')) app.removeContentTypeParser('application/json');
  app.addContentTypeParser([...types], (request, payload, done) => {
    if (Number(request.headers['content-length']) > limit) {
      done(codedError('PAYLOAD_TOO_LARGE', { limit }), undefined);
      return;
    }
    done(null, bounded(payload, limit));
  });
  // A handler that stopped reading early (a damaged file) leaves body bytes on the connection: close it after the answer.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.raw.complete === false) reply.header('connection', 'close');
    done(null, payload);
  });
}
