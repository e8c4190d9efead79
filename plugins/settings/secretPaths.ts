/**
 * Where a namespace keeps secrets: dotted patterns, `*` standing for any key of an object or item
 * of an array. A concrete path names array items by their `id` when they have one (`providers.openai.apiKey`),
 * so a secret stays with its provider when the list is reordered.
 */
export type SecretPattern = string;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);

/** What a read shows in a secret's place: whether one is set, never the value. */
export const SET_MARKER = Object.freeze({ set: true });

const isMarker = (value: unknown) => isObject(value) && Object.keys(value).length === 1 && value.set === true;

interface Slot {
  path: string;
  holder: Json;
  key: string;
}

/** Every place in `value` a pattern reaches whose parent exists (the secret itself may be absent). */
function slots(value: unknown, pattern: SecretPattern): Slot[] {
  const parts = pattern.split('.');
  const out: Slot[] = [];
  const walk = (node: unknown, i: number, at: string[]) => {
    const part = parts[i]!;
    const last = i === parts.length - 1;
    if (part === '*') {
      const entries: Array<[string, unknown]> = Array.isArray(node)
        ? node.map((item, n) => [isObject(item) && typeof item.id === 'string' ? item.id : String(n), item])
        : isObject(node) ? Object.entries(node) : [];
      for (const [name, child] of entries) walk(child, i + 1, [...at, name]);
      return;
    }
    if (!isObject(node)) return;
    if (last) out.push({ path: [...at, part].join('.'), holder: node, key: part });
    else walk(node[part], i + 1, [...at, part]);
  };
  walk(value, 0, []);
  return out;
}

export interface SplitSecrets {
  /** The body without its secrets. */
  values: Json;
  /** Secrets given as text, by concrete path. */
  given: Map<string, string>;
  /** Paths whose secret is cleared (null). Any other path keeps its stored secret (absent, or the read's `{ set: true }`). */
  cleared: Set<string>;
}

/** Takes the secrets out of a body a client sent (a copy; the body is not changed). */
export function splitSecrets(body: Json, patterns: readonly SecretPattern[]): SplitSecrets {
  const values = structuredClone(body);
  const given = new Map<string, string>();
  const cleared = new Set<string>();
  for (const pattern of patterns) {
    for (const slot of slots(values, pattern)) {
      const value = slot.holder[slot.key];
      if (typeof value === 'string') given.set(slot.path, value);
      else if (value === null) cleared.add(slot.path);
      else if (value !== undefined && !isMarker(value)) continue; // Not a secret's shape: left for the schema to refuse, naming its path.
      delete slot.holder[slot.key];
    }
  }
  return { values, given, cleared };
}

/** `values` with each secret put back at its path (paths whose parent is gone are dropped). */
export function joinSecrets(values: Json, secrets: ReadonlyMap<string, unknown>, patterns: readonly SecretPattern[]): Json {
  const out = structuredClone(values);
  for (const pattern of patterns) {
    for (const slot of slots(out, pattern)) {
      if (secrets.has(slot.path)) slot.holder[slot.key] = secrets.get(slot.path);
    }
  }
  return out;
}

/** The values present at the patterns' places, each with its concrete path (the same naming as secrets: list items by `id`). */
export function valuesAt(values: Json, patterns: readonly SecretPattern[]): Array<{ path: string; value: unknown }> {
  return patterns.flatMap((pattern) => slots(values, pattern).filter((s) => s.holder[s.key] !== undefined).map((s) => ({ path: s.path, value: s.holder[s.key] })));
}

/** The concrete secret paths `values` can hold (the parent of each exists). */
export function secretSlots(values: Json, patterns: readonly SecretPattern[]): string[] {
  return patterns.flatMap((pattern) => slots(values, pattern).map((s) => s.path));
}
