import type { HookName, HookRegistration, HooksRegistry } from '../../../capabilities/hooksRegistry.ts';

/**
 * Runs a data hook's handlers in order, awaiting each. A handler may change the event's mutable
 * parts (record, patch, query, result); a throw aborts the operation and, inside a write, rolls
 * the transaction back.
 */
export function runHooks(hooks: HooksRegistry, name: HookName, object: string, event: object): Promise<void> | undefined {
  const handlers = hooks.handlers(name, object);
  // No handler, no promise: reads and writes pass here on every call.
  return handlers.length === 0 ? undefined : runEach(handlers, event);
}

async function runEach(handlers: readonly HookRegistration[], event: object): Promise<void> {
  for (const registration of handlers) {
    await registration.handler(event);
  }
}
