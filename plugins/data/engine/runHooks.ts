import type { HookName, HooksRegistry } from '../../../capabilities/hooksRegistry.ts';

/**
 * Runs a data hook's handlers in order, awaiting each. A handler may change the event's mutable
 * parts (record, patch, query, result); a throw aborts the operation and, inside a write, rolls
 * the transaction back.
 */
export async function runHooks(hooks: HooksRegistry, name: HookName, object: string, event: object): Promise<void> {
  for (const registration of hooks.handlers(name, object)) {
    await registration.handler(event);
  }
}
