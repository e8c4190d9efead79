import { defineCapability } from './defineCapability.ts';

/**
 * The closed list of hook names. The eight data events are the object-logic hooks of the
 * data engine; the two runtime events mark the lifecycle.
 */
export const HOOK_NAMES = [
  'data.beforeFind',
  'data.afterFind',
  'data.beforeInsert',
  'data.afterInsert',
  'data.beforeUpdate',
  'data.afterUpdate',
  'data.beforeDelete',
  'data.afterDelete',
  'runtime.ready',
  'runtime.stopping',
] as const;

export type HookName = (typeof HOOK_NAMES)[number];

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type HookHandler = (event: any) => unknown;

export interface HookRegistration {
  hook: HookName;
  plugin: string;
  /** Limit the handler to one object (data hooks); unset means every object. */
  object?: string;
  /** Lower runs first; ties keep plugin boot order. */
  priority: number;
  /**
   * data.beforeInsert / data.afterInsert only: the handler looks at its own row alone, so a bulk
   * create (an import) may run it for a batch of rows at once: every row's before-handlers, one
   * write of the batch, then every row's after-handlers. A before-handler so marked changes or
   * refuses its event's record and writes nothing. Without it, such writes go row by row.
   */
  batched?: true;
  handler: HookHandler;
}

export interface HooksRegistry {
  /** Handlers for a hook (and object), in the order they must run. */
  handlers(hook: HookName, object?: string): readonly HookRegistration[];
  all(): readonly HookRegistration[];
}

export const hooksRegistry = defineCapability<HooksRegistry>()({
  id: 'hooks.registry',
  cardinality: 'single',
  description: 'Read the hook handlers every plugin registered (provided by the kernel).',
});
