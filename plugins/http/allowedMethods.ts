/** A mounted route as the router knows it: its method and its URL pattern (`:name` segments, a trailing `*`). */
export interface MountedRoute {
  method: string;
  url: string;
}

interface Pattern {
  /** Static segments as written; `null` for a parameter. */
  segments: Array<string | null>;
  /** The pattern ends in `*`: any further segments match. */
  rest: boolean;
  methods: Set<string>;
}

const segmentsOf = (path: string): string[] => {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return trimmed.split('/').slice(1);
};

function matches(pattern: Pattern, segments: readonly string[]): boolean {
  // A `*` pattern needs at least one segment after its static part, as the router does.
  if (pattern.rest ? segments.length <= pattern.segments.length : segments.length !== pattern.segments.length) return false;
  return pattern.segments.every((s, i) => (s === null ? segments[i] !== '' : s === segments[i]));
}

/**
 * The methods served at a path, from the route table made once at start, for the 405 answer to a
 * known path with another method. Consulted only when no route matched, so it costs nothing on
 * served requests. `null`: no route has this path (a 404). A GET route also answers HEAD.
 */
export function allowedMethods(routes: readonly MountedRoute[]): (path: string) => string[] | null {
  const byUrl = new Map<string, Pattern>();
  for (const route of routes) {
    let pattern = byUrl.get(route.url);
    if (!pattern) {
      const parts = segmentsOf(route.url);
      const rest = parts.at(-1) === '*';
      pattern = { segments: (rest ? parts.slice(0, -1) : parts).map((p) => (p.startsWith(':') ? null : p)), rest, methods: new Set() };
      byUrl.set(route.url, pattern);
    }
    pattern.methods.add(route.method);
    if (route.method === 'GET') pattern.methods.add('HEAD');
  }
  // By segment count: a path is compared with the patterns of its length and the `*` ones only.
  const bySize = new Map<number, Pattern[]>();
  const open: Pattern[] = [];
  for (const pattern of byUrl.values()) {
    if (pattern.rest) open.push(pattern);
    else bySize.set(pattern.segments.length, [...(bySize.get(pattern.segments.length) ?? []), pattern]);
  }
  return (path) => {
    const q = path.indexOf('?');
    const segments = segmentsOf(q >= 0 ? path.slice(0, q) : path);
    const methods = new Set<string>();
    for (const pattern of [...(bySize.get(segments.length) ?? []), ...open]) {
      if (matches(pattern, segments)) for (const m of pattern.methods) methods.add(m);
    }
    return methods.size > 0 ? [...methods].sort() : null;
  };
}
