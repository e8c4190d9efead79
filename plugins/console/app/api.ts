import { environment } from './route.ts';

/** An answer of the API that is not a success: its envelope `{ error: { code, message, details } }`. */
export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string, readonly details: Record<string, unknown> = {}) {
    super(message);
  }

  /** `details.errors` of a VALIDATION_ERROR, by field name (`body/name`, `name` -> `name`). */
  fieldErrors(): Record<string, string> {
    const out: Record<string, string> = {};
    const list = Array.isArray(this.details.errors) ? this.details.errors as Array<{ path?: string; field?: string; message?: string }> : [];
    for (const e of list) {
      const name = String(e.field ?? e.path ?? '').replace(/^(body[./])/, '').split(/[./[]/)[0] ?? '';
      if (name) out[name] = e.message ?? this.message;
    }
    if (typeof this.details.field === 'string' && !out[this.details.field]) out[this.details.field] = this.message;
    return out;
  }
}

/** The API root of the environment in the URL (`/api/v1`, or `/api/v1/environments/<id>`). */
export function apiBase(): string {
  const env = environment.value;
  return env ? `/api/v1/environments/${encodeURIComponent(env)}` : '/api/v1';
}

export interface RequestOptions {
  method?: string;
  body?: unknown;
  query?: Record<string, string | number | undefined>;
  headers?: Record<string, string>;
  /** Aborts the request (and reading its body). */
  signal?: AbortSignal;
}

export function urlOf(path: string, query?: RequestOptions['query']): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== '') params.set(k, String(v));
  const qs = params.toString();
  return `${apiBase()}${path}${qs ? `?${qs}` : ''}`;
}

/** Calls the public API with the session cookie; a non-2xx answer throws an ApiError. */
export async function request(path: string, options: RequestOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(urlOf(path, options.query), {
      method: options.method ?? 'GET',
      headers,
      credentials: 'same-origin',
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    });
  } catch (error) {
    throw new ApiError(0, 'NETWORK', `The server could not be reached (${(error as Error).message}).`);
  }
  if (!response.ok) throw errorOf(response.status, response.statusText, await response.text());
  return response;
}

/** The ApiError of an answer that is not a success, from its envelope when it has one. */
function errorOf(status: number, statusText: string, text: string): ApiError {
  let envelope: { error?: { code?: string; message?: string; details?: Record<string, unknown> } } = {};
  try {
    envelope = JSON.parse(text);
  } catch {
    // Not our envelope: the status says enough.
  }
  const e = envelope.error ?? {};
  return new ApiError(status, e.code ?? `HTTP_${status}`, e.message ?? `${status} ${statusText}`, e.details ?? {});
}

export interface SendOptions {
  contentType?: string;
  /** The share of the body sent so far, 0 to 100. */
  onProgress?(percent: number): void;
  /** The whole body is sent: the server is working on it. */
  onSent?(): void;
}

/**
 * POSTs a body reporting the upload's progress (which fetch does not): resolves with the parsed
 * answer; an answer that is not a success rejects with its ApiError, a connection closed before
 * the answer with `NETWORK`.
 */
export function sendWithProgress<T = any>(path: string, body: XMLHttpRequestBodyInit, options: SendOptions = {}): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', urlOf(path));
    xhr.setRequestHeader('accept', 'application/json');
    if (options.contentType) xhr.setRequestHeader('content-type', options.contentType);
    xhr.upload.onprogress = (e) => { if (e.lengthComputable) options.onProgress?.(Math.round((e.loaded / e.total) * 100)); };
    xhr.upload.onload = () => options.onSent?.();
    xhr.onload = () => {
      if (xhr.status < 200 || xhr.status >= 300) { reject(errorOf(xhr.status, xhr.statusText, xhr.responseText)); return; }
      try {
        resolve((xhr.responseText ? JSON.parse(xhr.responseText) : null) as T);
      } catch {
        reject(new ApiError(xhr.status, `HTTP_${xhr.status}`, 'The answer was not JSON.'));
      }
    };
    xhr.onerror = () => reject(new ApiError(0, 'NETWORK', 'The server closed the connection before answering.'));
    xhr.send(body);
  });
}

export async function api<T = any>(path: string, options: RequestOptions = {}): Promise<T> {
  const response = await request(path, options);
  if (response.status === 204) return null as T;
  const text = await response.text();
  return (text ? JSON.parse(text) : null) as T;
}
