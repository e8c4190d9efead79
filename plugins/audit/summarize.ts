/**
 * Field names whose values are secrets, compared as a whole name (letters and digits only,
 * lower-case: `api_key`, `apiKey` and `API-KEY` are all `apikey`).
 */
const SECRET_NAMES: ReadonlySet<string> = new Set([
  'key', 'code', 'pin', 'otp', 'hash', 'salt', 'jwt', 'cookie', 'cookies', 'authorization', 'signature', 'credential', 'credentials',
]);
/** Name endings that make any field a secret (`newPassword`, `client_secret`, `refreshToken`, `smtpApiKey`). */
const SECRET_ENDINGS = [
  'password', 'passwd', 'passphrase', 'secret', 'secrets', 'token', 'tokens', 'apikey', 'privatekey', 'secretkey', 'accesskey', 'signingkey',
  'encryptionkey', 'sessionkey', 'backupcode', 'backupcodes', 'recoverycode', 'recoverycodes', 'verificationcode', 'otpcode', 'totpcode', 'resetcode',
  'authcode', 'authorizationcode', 'devicecode', 'totpuri', 'otpauthuri', 'otpauthurl', 'ciphertext',
];
/** Short endings that count only as the last word of a name (`passwordHash`, `user_salt`; not `basalt`). */
const SECRET_LAST_WORDS: ReadonlySet<string> = new Set(['hash', 'salt', 'otp', 'pin', 'cookie', 'signature', 'credential', 'credentials', 'authorization']);
/** Values shaped like a credential of this runtime (API keys start with osk_). */
const SECRET_VALUE = /^osk_/;

const MAX_KEYS = 30;
const MAX_ITEMS = 20;
const MAX_TEXT = 200;
const MAX_DEPTH = 3;

/** The words of one name: `passwordHash` and `password_hash` are both `password`, `hash`. */
const wordsOf = (name: string): string[] =>
  name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().split(/[^a-z0-9]+/).filter((w) => w !== '');

function isSecretSegment(segment: string): boolean {
  const words = wordsOf(segment);
  if (words.length === 0) return false;
  const whole = words.join('');
  if (SECRET_NAMES.has(whole)) return true;
  if (SECRET_ENDINGS.some((ending) => whole.endsWith(ending))) return true;
  return SECRET_LAST_WORDS.has(words[words.length - 1]!);
}

/**
 * Whether a field name names a secret: by exact names and name endings, not by loose matching
 * (`postcode`, `tokenCount`, `passwordChangedAt` are not secrets). A dotted name
 * (`smtp.password`) is a secret when any of its parts is.
 */
export function isSecretField(name: string): boolean {
  return name.split('.').some(isSecretSegment);
}

/**
 * The before/after summary an audit event keeps: a bounded copy with every field that names a
 * secret removed (at any depth; a true/false flag stays), credential-shaped values hidden, and every cut marked: a long
 * text ends with `…[cut: N characters]`, a wide object gets a `…` key saying how many keys were
 * left out, a long list ends with `[cut: N more items]`, a deeper level is `[cut: nested]`. Pure.
 */
export function summarize(value: Record<string, unknown> | null | undefined): Record<string, unknown> | null {
  if (value === null || value === undefined) return null;
  const out = summarizeValue(value, 1);
  return out !== null && typeof out === 'object' && !Array.isArray(out) ? (out as Record<string, unknown>) : null;
}

function summarizeValue(value: unknown, depth: number): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') {
    if (SECRET_VALUE.test(value)) return '[hidden]';
    return value.length > MAX_TEXT ? `${value.slice(0, MAX_TEXT)}…[cut: ${value.length} characters]` : value;
  }
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Date) return value.toISOString();
  if (typeof value !== 'object') return null;
  if (depth > MAX_DEPTH) return '[cut: nested]';
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_ITEMS).map((item) => summarizeValue(item, depth + 1));
    if (value.length > MAX_ITEMS) items.push(`[cut: ${value.length - MAX_ITEMS} more items]`);
    return items;
  }
  const out: Record<string, unknown> = {};
  let kept = 0;
  let left = 0;
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    // A yes/no holds no secret: `mustChangePassword: true` stays readable.
    if (typeof item !== 'boolean' && isSecretField(key)) continue;
    if (kept >= MAX_KEYS) {
      left += 1;
      continue;
    }
    kept += 1;
    out[key] = summarizeValue(item, depth + 1);
  }
  if (left > 0) out['…'] = `[cut: ${left} more keys]`;
  return out;
}
