import { codedError, isCodedError, type CodedError } from '../../kernel/errors.ts';

/** Longest path segment matched as a route parameter (the router's maxParamLength); longer is 414. */
export const MAX_PARAM_LENGTH = 200;

interface FastifyLikeError {
  code?: string;
  statusCode?: number;
  message?: string;
  validation?: Array<{ keyword?: string; instancePath?: string; message?: string; params?: Record<string, unknown> }>;
  validationContext?: string;
}

/** Map anything thrown while handling a request to a coded error for the envelope. */
export function toErrorResponse(error: unknown, requestId: string, limit: number, contentType?: string): { error: CodedError; internal: boolean } {
  if (isCodedError(error)) return { error, internal: error.status >= 500 };
  const e = (error ?? {}) as FastifyLikeError;
  if (e.validation) {
    const errors = e.validation.map((v) => {
      const extra = v.params && 'additionalProperty' in v.params ? `/${String(v.params.additionalProperty)}` : '';
      return { path: `${e.validationContext ?? 'body'}${v.instancePath ?? ''}${extra}`, message: validationMessage(v) };
    });
    return { error: codedError('VALIDATION_ERROR', { summary: errors.map((x) => `${x.path} ${x.message}`).join('; '), errors }), internal: false };
  }
  switch (e.code) {
    case 'FST_ERR_BAD_URL':
      // The URL is not repeated: it may carry what the client did not mean to echo.
      return { error: codedError('MALFORMED_REQUEST', { reason: 'the URL path holds an invalid percent-encoding (a % not followed by two hex digits, or bytes that are not UTF-8)' }), internal: false };
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return { error: codedError('URI_TOO_LONG', { limit: MAX_PARAM_LENGTH }), internal: false };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { error: codedError('PAYLOAD_TOO_LARGE', { limit }), internal: false };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      // fastify's message does not name the type; the request's header does (without parameters, bounded).
      return { error: codedError('UNSUPPORTED_MEDIA_TYPE', { contentType: contentType?.split(';')[0]?.trim().slice(0, 100) || 'unknown' }), internal: false };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { error: codedError('MALFORMED_JSON', { reason: 'the body is empty but Content-Type is application/json' }), internal: false };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { error: codedError('VALIDATION_ERROR', { summary: 'Content-Length does not match the body' }), internal: false };
  }
  if (e.statusCode === 400 && (error instanceof SyntaxError || e.code === 'FST_ERR_CTP_INVALID_JSON_BODY')) {
    return { error: codedError('MALFORMED_JSON', { reason: e.message ?? 'unexpected input' }), internal: false };
  }
  if (e.statusCode === 413) return { error: codedError('PAYLOAD_TOO_LARGE', { limit }), internal: false };
  if (e.statusCode && e.statusCode >= 400 && e.statusCode < 500) {
    return { error: codedError('VALIDATION_ERROR', { summary: e.message ?? 'bad request' }), internal: false };
  }
  return { error: codedError('INTERNAL', { requestId }), internal: true };
}

/** The validator's sentence, with what it leaves out: the allowed values of an enum, the one of a const. */
function validationMessage(v: { keyword?: string; message?: string; params?: Record<string, unknown> }): string {
  const allowed = v.params?.allowedValues;
  if (v.keyword === 'enum' && Array.isArray(allowed)) {
    const shown = allowed.slice(0, 50).map((a) => JSON.stringify(a)).join(', ');
    return `must be one of ${shown}${allowed.length > 50 ? `, … (${allowed.length} in all)` : ''}`;
  }
  if (v.keyword === 'const' && v.params && 'allowedValue' in v.params) return `must be ${JSON.stringify(v.params.allowedValue)}`;
  return v.message ?? 'is not valid';
}
