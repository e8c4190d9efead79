import type { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Calls into the auth engine, counted, so that its async-local storages are switched off while
 * none runs.
 *
 * The engine keeps each call's state in AsyncLocalStorage instances (kept on a process-wide global
 * of its own). On Node 20 a storage that ran once stays enabled, and while any is enabled every
 * promise of the process runs the storages' hooks: 20 to 25% of a record write's CPU, paid by
 * every request after the first sign-in although none of them calls the engine (a request's
 * principal usually comes from the principal cache). Every call of ours goes through `engineCall`
 * (the environment's engine and context facades make sure of it); when the last running one
 * ends, the storages are disabled. The engine's next call enables them again (`run` does), so a
 * call always has its state; a continuation the engine left running past its call's end would find
 * none (it keeps none: its background work is awaited unless a background handler is configured,
 * and none is).
 */
let running = 0;

/** Runs `call` counted among the calls into the auth engine. */
export function engineCall<T>(call: () => Promise<T>): Promise<T> {
  running += 1;
  let pending: Promise<T>;
  try {
    pending = call();
  } catch (error) {
    ended();
    return Promise.reject(error);
  }
  return pending.finally(ended);
}

/** An object whose every method forwards, counted, to the same method of what `target` resolves to. */
export function engineCalls<T extends object>(target: () => Promise<T>): T {
  const methods = new Map<PropertyKey, (...args: unknown[]) => Promise<unknown>>();
  return new Proxy({} as T, {
    get(_, name) {
      // Not a promise: `await facade` gives the facade itself.
      if (name === 'then') return undefined;
      let method = methods.get(name);
      if (!method) {
        method = (...args: unknown[]) => engineCall(async () => {
          const resolved = (await target()) as Record<PropertyKey, (...a: unknown[]) => unknown>;
          return resolved[name]!(...args);
        });
        methods.set(name, method);
      }
      return method;
    },
  });
}

/** Calls into the auth engine running now (tests). */
export function runningEngineCalls(): number {
  return running;
}

/** The engine's storages that exist: its global holds them once made. */
export function engineStorages(): AsyncLocalStorage<unknown>[] {
  const global = (globalThis as Record<symbol, { context?: Record<string, unknown> } | undefined>)[Symbol.for('better-auth:global')];
  const context = global?.context ?? {};
  return Object.values(context).filter((value): value is AsyncLocalStorage<unknown> => typeof (value as { disable?: unknown } | null)?.disable === 'function' && typeof (value as { run?: unknown }).run === 'function');
}

function ended(): void {
  running -= 1;
  if (running === 0) for (const storage of engineStorages()) storage.disable();
}
