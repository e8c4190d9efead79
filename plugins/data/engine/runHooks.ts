import type { HookName, HookRegistration, HooksRegistry } from '../../../capabilities/hooksRegistry.ts';

/**
 * Runs a data hook's handlers in order. A handler may change the event's mutable parts (record,
 * patch, query, result); a throw aborts the operation and, inside a write, rolls the transaction
 * back. Undefined when no handler answered a promise (see runHandlers).
 */
export function runHooks(hooks: HooksRegistry, name: HookName, object: string, event: object): Promise<void> | undefined {
  const handlers = hooks.handlers(name, object);
  // No handler, no promise: reads and writes pass here on every call.
  return handlers.length === 0 ? undefined : runHandlers(handlers, event);
}

/**
 * The handlers in order, each after the one before has finished: a handler answering a promise is
 * waited for; one that answers at once (most skip objects they do not serve) makes no promise.
 */
export function runHandlers(handlers: readonly HookRegistration[], event: object): Promise<void> | undefined {
  for (let i = 0; i < handlers.length; i++) {
    const result = handlers[i]!.handler(event) as PromiseLike<unknown> | undefined;
    if (typeof result?.then === 'function') return Promise.resolve(result).then(() => runHandlers(handlers.slice(i + 1), event));
  }
  return undefined;
}
