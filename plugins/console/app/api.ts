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
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    });
  } catch (error) {
    throw new ApiError(0, 'NETWORK', `The server could not be reached (${(error as Error).message}).`);
  }
  if (!response.ok) {
    let envelope: { error?: { code?: string; message?: string; details?: Record<string, unknown> } } = {};
    try {
      envelope = await response.json();
    } catch {
      // Not our envelope: the status says enough.
    }
    const e = envelope.error ?? {};
    throw new ApiError(response.status, e.code ?? `HTTP_${response.status}`, e.message ?? `${response.status} ${response.statusText}`, e.details ?? {});
  }
  return response;
}

export async function api<T = any>(path: string, options: RequestOptions = {}): Promise<T> {
  const response = await request(path, options);
  if (response.status === 204) return null as T;
  const text = await response.text();
  return (text ? JSON.parse(text) : null) as T;
}
