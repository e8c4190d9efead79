export const API_PREFIX = '/api/v1';

/** The wildcard of a route path, documented as a path parameter of this name. */
export const WILDCARD = 'wildcard';

/**
 * The documented path of a mounted one: relative to the `/api/v1` server (root routes keep their
 * path and get their own server), `:name` as `{name}`, a trailing `*` as `{wildcard}`.
 */
export function documentedPath(fullPath: string, root: boolean): string {
  const relative = root || !fullPath.startsWith(API_PREFIX) ? fullPath : fullPath.slice(API_PREFIX.length) || '/';
  return relative.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\*$/, `{${WILDCARD}}`);
}

/** Names of the `{param}`s of a documented path, in order. */
export function pathParams(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
}

const words = (text: string) => text.split(/[^A-Za-z0-9]+/).filter(Boolean);
const cap = (w: string) => w[0]!.toUpperCase() + w.slice(1);

/** `GET /auth/sign-in` -> `getAuthSignIn`, `{id}` -> `ById`. */
export function operationIdOf(method: string, path: string): string {
  const parts = path.split('/').filter(Boolean).flatMap((segment) => {
    const param = /^\{(.+)\}$/.exec(segment);
    return param ? ['by', ...words(param[1]!)] : words(segment);
  });
  return method.toLowerCase() + (parts.length > 0 ? parts.map(cap).join('') : 'Root');
}

/** `sales_order` -> `SalesOrder`. */
export function pascal(name: string): string {
  return words(name).map(cap).join('');
}
