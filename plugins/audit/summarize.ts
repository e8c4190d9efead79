/** Keys whose values are secrets or credentials: never kept in a summary, whatever the caller sends. */
const SECRET_KEY = /pass(word|wd|phrase)?|secret|token|api_?key|^key$|_key$|hash|salt|otp|code|credential|private|cookie|authorization|signature|cipher/i;
/** Values shaped like a credential of this runtime (API keys start with osk_). */
const SECRET_VALUE = /^osk_/;

const MAX_KEYS = 30;
const MAX_ITEMS = 20;
const MAX_TEXT = 200;
const MAX_DEPTH = 3;

/**
 * The before/after summary an audit event keeps: a bounded copy with every key that names a
 * secret removed (at any depth), long texts cut, credential-shaped values dropped. Pure.
 */
export function summarize(value: Record<string, unknown> | null | undefined): Record<string, unknown> | null {
  if (value === null || value === undefined) return null;
  const out = summarizeValue(value, 1);
  return out !== null && typeof out === 'object' && !Array.isArray(out) ? (out as Record<string, unknown>) : null;
}

function summarizeValue(value: unknown, depth: number): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return SECRET_VALUE.test(value) ? '[hidden]' : value.length > MAX_TEXT ? `${value.slice(0, MAX_TEXT)}…` : value;
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Date) return value.toISOString();
  if (depth > MAX_DEPTH) return '[…]';
  if (Array.isArray(value)) return value.slice(0, MAX_ITEMS).map((item) => summarizeValue(item, depth + 1));
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    let n = 0;
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
      if (SECRET_KEY.test(key)) continue;
      if (n++ >= MAX_KEYS) break;
      out[key] = summarizeValue(item, depth + 1);
    }
    return out;
  }
  return null;
}
