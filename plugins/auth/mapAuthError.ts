import { codedError, type CodedError } from '../../kernel/errors.ts';

export interface EngineError {
  status: number;
  /** The engine's own code, e.g. INVALID_EMAIL_OR_PASSWORD. */
  code?: string | undefined;
  message?: string | undefined;
  /** Seconds, from the engine's Retry-After style header. */
  retryAfter?: number | undefined;
  method?: string | undefined;
  path?: string | undefined;
}

/** The password lengths the engine enforces, so its refusals can say them. */
export interface PasswordLengths {
  min: number;
  max: number;
}

/** Turn an error answer of the auth engine into our envelope, keeping its code in details.reason. */
/** 5xx answers become a plain Error, so the server logs them and answers INTERNAL with the request id. */
export function mapAuthError(error: EngineError, passwords?: PasswordLengths): CodedError | Error {
  const reason = error.code ?? `HTTP_${error.status}`;
  const message = error.message?.trim() || undefined;
  const text = (fallback: string) => (message ? `${message.replace(/[.!]?$/, '.')}` : fallback);
  switch (error.status) {
    case 400:
    case 422:
      if (passwords && (reason === 'PASSWORD_TOO_SHORT' || reason === 'PASSWORD_TOO_LONG')) {
        const bound = reason === 'PASSWORD_TOO_SHORT' ? `at least ${passwords.min}` : `at most ${passwords.max}`;
        return codedError('VALIDATION_ERROR', { summary: `the password is too ${reason === 'PASSWORD_TOO_SHORT' ? 'short' : 'long'}: use ${bound} characters`, reason, minLength: passwords.min, maxLength: passwords.max });
      }
      return codedError('VALIDATION_ERROR', { summary: message ?? reason, reason });
    case 401:
      return codedError('UNAUTHENTICATED', { reason }, text('Authentication failed.'));
    case 403:
      return codedError('PERMISSION_DENIED', { reason }, text('Permission denied.'));
    case 404:
      return error.code
        ? codedError('NOT_FOUND', { what: message ?? 'The resource', reason }, text('Not found.'))
        : codedError('ROUTE_NOT_FOUND', { method: error.method ?? 'GET', path: error.path ?? '/api/v1/auth' });
    case 409:
      return codedError('CONFLICT', { summary: message ?? reason, reason });
    case 502:
      // A refusal of the SMS provider, raised while the engine texted a code (phoneNumberPlugin.ts).
      if (error.code === 'SMS_PROVIDER_ERROR') return codedError('SMS_PROVIDER_ERROR', { reason: message ?? 'refused' }, message);
      return new Error(`the auth engine answered ${error.status} (${reason}): ${message ?? 'no message'}`);
    case 429: {
      const retryAfter = Math.max(1, Math.ceil(error.retryAfter ?? 60));
      return codedError('RATE_LIMITED', { retryAfter, reason });
    }
    default:
      return new Error(`the auth engine answered ${error.status} (${reason}): ${message ?? 'no message'}`);
  }
}

/** Read an error answer (a Fetch Response with status >= 400) of the engine. */
export async function errorFromResponse(response: Response, method: string, path: string, passwords?: PasswordLengths): Promise<CodedError | Error> {
  // The engine's own errors carry code and message; its OAuth endpoints error and error_description.
  let body: { code?: unknown; message?: unknown; error?: unknown; error_description?: unknown } = {};
  try {
    body = (await response.json()) as typeof body;
  } catch {
    // Not JSON (an empty 404, an HTML error page): the status says enough.
  }
  const header = response.headers.get('x-retry-after') ?? response.headers.get('retry-after');
  return mapAuthError({
    status: response.status,
    code: typeof body.code === 'string' ? body.code : typeof body.error === 'string' ? body.error : undefined,
    message: typeof body.message === 'string' ? body.message : typeof body.error_description === 'string' ? body.error_description : undefined,
    retryAfter: header && /^\d+$/.test(header) ? Number(header) : undefined,
    method,
    path,
  }, passwords);
}

/** An error thrown by the engine's server-side API (APIError: statusCode and body). */
export function fromEngineThrow(error: unknown): CodedError | Error | null {
  const e = error as { statusCode?: unknown; body?: { code?: unknown; message?: unknown } } | null;
  if (!e || typeof e.statusCode !== 'number' || e.statusCode < 400) return null;
  return mapAuthError({
    status: e.statusCode,
    code: typeof e.body?.code === 'string' ? e.body.code : undefined,
    message: typeof e.body?.message === 'string' ? e.body.message : undefined,
  });
}
