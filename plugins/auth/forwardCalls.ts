/**
 * An object whose every method forwards its call to the same method of the object `target`
 * resolves to: calls made before that object exists wait for it.
 */
export function forwardCalls<T extends object>(target: () => Promise<T>): T {
  return new Proxy({} as T, {
    get(_, name) {
      return async (...args: unknown[]) => {
        const resolved = (await target()) as Record<PropertyKey, (...a: unknown[]) => unknown>;
        return resolved[name]!(...args);
      };
    },
  });
}
