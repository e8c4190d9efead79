import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { codedError } from '../../kernel/errors.ts';
import { WRITE_TOKEN_HEADER } from '../../capabilities/dataEngine.ts';
import type { DataWriteTokens } from '../../capabilities/dataWriteTokens.ts';
import { addJsonBody } from './jsonBody.ts';
import type { Logger } from '../../kernel/logger.ts';
import { addBodyDeadline, clientErrorHandler } from './clientDeadline.ts';
import type { HttpOptions } from './httpOptions.ts';
import { requestLoggerFactory } from './requestLogger.ts';
import type { RouteCompilers } from './routeCompilers.ts';
import { MAX_PARAM_LENGTH, toErrorResponse } from './toErrorResponse.ts';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * A fastify instance with the envelope for every non-2xx, request ids, limits and timeouts.
 * `allowed` gives the methods served at a path (allowedMethods.ts): a path no route matched
 * answers 405 with them when it has some, else 404. `compilers` replaces fastify's schema compilers
 * (routeCompilers.ts).
 */
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function createServer(options: HttpOptions, log: Logger, allowed: (path: string) => string[] | null, compilers: RouteCompilers, tokens?: DataWriteTokens): FastifyInstance {
  const sendError = (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const { error: coded, internal } = toErrorResponse(error, request.id, options.bodyLimit, request.headers['content-type']);
    // A read stopped because its client went away (a 503 for it, a reset stream) is the client's
    // doing, not a failure of the server; any other fault stays an error, client or not.
    const code = (error as { code?: unknown } | null)?.code;
    const clientGone = request.raw.socket?.destroyed === true && (coded.status === 503 || code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE');
    if (internal && clientGone) request.log.info({ err: error, code: coded.code }, 'request closed by its client');
    else if (internal) request.log.error({ err: error }, 'request failed');
    if (coded.code === 'RATE_LIMITED' && coded.details.retryAfter !== undefined) reply.header('retry-after', String(coded.details.retryAfter));
    if (coded.code === 'METHOD_NOT_ALLOWED' && Array.isArray(coded.details.allow)) reply.header('allow', coded.details.allow.join(', '));
    reply.code(coded.status).type('application/json; charset=utf-8').send({ error: coded.toJSON() });
  };
  const app = Fastify({
    loggerInstance: log as unknown as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: !options.logRequests }),
    childLoggerFactory: requestLoggerFactory,
    bodyLimit: options.bodyLimit,
    requestTimeout: options.requestTimeoutMs,
    connectionTimeout: options.requestTimeoutMs,
    // Node checks request deadlines every 30 s by default, so a client trickling bytes would keep
    // its socket far past requestTimeoutMs; check often enough to cut it within a quarter of it.
    http: { connectionsCheckingInterval: Math.max(100, Math.min(30_000, Math.floor(options.requestTimeoutMs / 4))) },
    clientErrorHandler: clientErrorHandler(options.requestTimeoutMs),
    keepAliveTimeout: options.keepAliveTimeoutMs,
    trustProxy: options.trustProxy,
    // Our own 503 below carries the envelope; fastify's built-in one does not.
    return503OnClosing: false,
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    // Schemas are not checked against the JSON Schema meta-schema at boot: compiling the meta-schema
    // took a third of the validators' boot time. Strict mode still refuses unknown keywords, and
    // test/http/routeSchemas.test.ts checks every built-in route's schemas against the meta-schema.
    schemaController: { compilersFactory: compilers.factory },
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', allErrors: true, useDefaults: true, validateSchema: false } },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    // A URL the router cannot read (bad percent-encoding, a parameter over MAX_PARAM_LENGTH), before any hook.
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id);
      sendError(error, request, reply);
    },
  });

  addJsonBody(app);

  app.decorateRequest('principal', null);
  app.decorateRequest('environmentId', '');

  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });

  // Hooks on every request take the callback form: an async hook costs a promise per request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    // A request reaching a draining server (pipelined, or on a busy keep-alive connection).
    if (closing) return done(codedError('SERVICE_UNAVAILABLE', { service: 'The server', reason: 'it is shutting down' }));
    // No route matched: answered now, before a body is read or parsed (a bad body says nothing of a missing route).
    done(request.is404 ? unmatched(request.method, request.url) : undefined);
  });

  addBodyDeadline(app, options.requestTimeoutMs);

  // A response finished during drain closes its connection, so shutdown need not wait for the keep-alive timeout.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    // A write's answer carries the read-your-writes token (docs/data-api.md): whatever the route,
    // since any write may change records (actions, imports, flows).
    if (tokens && !READ_METHODS.has(request.method) && reply.statusCode < 400 && request.environmentId !== '') {
      const token = tokens.token(request.environmentId);
      if (token !== undefined) reply.header(WRITE_TOKEN_HEADER, token);
    }
    done(null, payload);
  });

  app.setErrorHandler(sendError);

  /** 405 with the methods a known path serves, else 404; the query string is never repeated. */
  const unmatched = (method: string, url: string) => {
    const path = url.split('?')[0]!.slice(0, 500);
    const allow = allowed(url);
    // A path the table lists for this very method but the router did not match is unknown: 404.
    return allow && !allow.includes(method)
      ? codedError('METHOD_NOT_ALLOWED', { method, path, allow }, `Method ${method} is not allowed on ${path}; it serves ${allow.join(', ')}.`)
      : codedError('ROUTE_NOT_FOUND', { method, path });
  };
  app.setNotFoundHandler((request, reply) => sendError(unmatched(request.method, request.url), request, reply));
  return app;
}
