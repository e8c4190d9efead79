import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { codedError, type CodedError } from '../../kernel/errors.ts';

/** The envelope written straight to a socket fastify has no reply for, then the socket closed. */
function answerAndClose(socket: Socket, error: CodedError): void {
  // Never interleave with a response already being written on this connection.
  const current = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !current?.headersSent) {
    const body = JSON.stringify({ error: error.toJSON() });
    socket.write(`HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? ''}\r\ncontent-type: application/json; charset=utf-8\r\n`
      + `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  }
  socket.destroy();
}

/**
 * Node's answer to a request it could not read (headers past the deadline, too large, malformed),
 * in the error envelope like every other non-2xx.
 */
export function clientErrorHandler(timeoutMs: number) {
  return (error: Error & { code?: string }, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const coded = error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? codedError('REQUEST_TIMEOUT', { timeoutMs })
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? codedError('HEADERS_TOO_LARGE')
        : codedError('MALFORMED_REQUEST', { reason: (error.code ?? 'bad request').replace(/^HPE_/, '').toLowerCase().replace(/_/g, ' ') });
    answerAndClose(socket, coded);
  };
}

/**
 * Node enforces requestTimeout on the headers only: once a handler runs, a body trickling in a
 * byte at a time would hold the socket for ever. A request with a body gets the same deadline for
 * the body; past it, a 408 and the connection is closed.
 *
 * Most bodies come in the same read as their headers and are complete once it is parsed, before
 * the event loop turns: the requests of one turn are looked at after it (one setImmediate), and
 * only a body still incoming gets its timer, for what is left of the deadline.
 */
export function addBodyDeadline(app: FastifyInstance, timeoutMs: number): void {
  let incoming: Array<{ request: FastifyRequest; reply: FastifyReply; since: number }> = [];
  const arm = ({ request, reply, since }: (typeof incoming)[number]) => {
    const raw = request.raw;
    if (raw.complete || reply.sent || raw.destroyed) return;
    const timer = setTimeout(() => {
      if (!raw.complete && !reply.sent) answerAndClose(raw.socket, codedError('REQUEST_TIMEOUT', { timeoutMs }));
    }, Math.max(0, since + timeoutMs - Date.now()));
    timer.unref();
    const clear = () => clearTimeout(timer);
    raw.once('end', clear);
    reply.raw.once('close', clear);
  };
  const armIncoming = () => {
    const turn = incoming;
    incoming = [];
    for (const entry of turn) arm(entry);
  };
  app.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw;
    const length = raw.headers['content-length'];
    if (raw.complete || (raw.headers['transfer-encoding'] === undefined && (length === undefined || length === '0'))) return done();
    if (incoming.length === 0) setImmediate(armIncoming);
    incoming.push({ request, reply, since: Date.now() });
    done();
  });
}
