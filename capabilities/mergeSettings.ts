/**
 * Options with an environment's settings over them, key by key: an object is merged into the
 * config file's object, anything else (a value, a list) replaces it. docs/settings.md, Precedence.
 */
export function mergeSettings(base: Record<string, unknown>, settings: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(settings)) {
    const under = out[key];
    const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
    out[key] = isObject(value) && isObject(under) ? mergeSettings(under, value) : value;
  }
  return out;
}
