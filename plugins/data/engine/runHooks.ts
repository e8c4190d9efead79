import type { HookName, HookRegistration, HooksRegistry } from '../../../capabilities/hooksRegistry.ts';

/** What the handlers with `prepare` answered before the write's transaction opened (prepareWrite.ts), by handler. */
export type PreparedByHandler = ReadonlyMap<HookRegistration, unknown>;

/**
 * Runs a data hook's handlers in order. A handler may change the event's mutable parts (record,
 * patch, query, result); a throw aborts the operation and, inside a write, rolls the transaction
 * back. Undefined when no handler answered a promise (see runHandlers).
 */
export function runHooks(hooks: HooksRegistry, name: HookName, object: string, event: object, prepared?: PreparedByHandler): Promise<void> | undefined {
  const handlers = hooks.handlers(name, object);
  // No handler, no promise: reads and writes pass here on every call.
  return handlers.length === 0 ? undefined : runHandlers(handlers, event, prepared);
}

/**
 * The handlers in order, each after the one before has finished: a handler answering a promise is
 * waited for; one that answers at once (most skip objects they do not serve) makes no promise.
 * Each handler gets, as its second argument, what its own `prepare` answered for this write (if
 * anything).
 */
export function runHandlers(handlers: readonly HookRegistration[], event: object, prepared?: PreparedByHandler): Promise<void> | undefined {
  for (let i = 0; i < handlers.length; i++) {
    const handler = handlers[i]!;
    const result = (prepared === undefined ? handler.handler(event) : handler.handler(event, prepared.get(handler))) as PromiseLike<unknown> | undefined;
    if (typeof result?.then === 'function') return Promise.resolve(result).then(() => runHandlers(handlers.slice(i + 1), event, prepared));
  }
  return undefined;
}
