import type { FastifyInstance } from 'fastify';
import { jsonProblem, jsonProblemError } from '../../kernel/jsonLimits.ts';

/**
 * The JSON bodies every route takes: fastify's parser (prototype poisoning refused), then the
 * document checked once before any route's hooks see it (kernel/jsonLimits.ts): nested at most
 * MAX_BODY_DEPTH levels, no lone UTF-16 surrogate. 400 VALIDATION_ERROR otherwise, on our routes
 * and the auth engine's alike. Only JSON is parsed: a body of another type (text/plain included)
 * is 415 unless its route reads that type itself.
 */
export function addJsonBody(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, text, done) => {
    parse(request, text as string, (error, value) => {
      if (error) return done(error, undefined);
      const problem = jsonProblem(value, { text: text as string });
      done(problem ? jsonProblemError(problem) : null, value);
    });
  });
}
