import { codedError } from '../../kernel/errors.ts';

export interface ProviderAnswer {
  status: number;
  /** The parsed JSON answer, or null when it was not JSON. */
  json: unknown;
}

/** Largest answer read from a provider; theirs are a few hundred bytes. */
const MAX_ANSWER_BYTES = 64 * 1024;

async function readBounded(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel().catch(() => undefined);
      break;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * POST a form to a provider and read its JSON answer. A network failure or a timeout is an
 * SMS_PROVIDER_ERROR naming only its kind: the request carries credentials and the message.
 * `fetchWith`: the settings' checked connections when the settings chose the provider's host.
 */
export async function postForm(provider: string, url: string, form: Record<string, string>, headers: Record<string, string>, timeoutMs: number, fetchWith: typeof fetch = fetch): Promise<ProviderAnswer> {
  let response: Response;
  try {
    response = await fetchWith(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...headers },
      body: new URLSearchParams(form).toString(),
      redirect: 'error',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const e = error as { name?: string; cause?: { code?: unknown } };
    const reason = e.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : `unreachable (${typeof e.cause?.code === 'string' ? e.cause.code : 'network error'})`;
    throw codedError('SMS_PROVIDER_ERROR', { provider, reason });
  }
  const text = await readBounded(response).catch(() => '');
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    // Not JSON (a proxy's error page): the status says enough.
  }
  return { status: response.status, json };
}
