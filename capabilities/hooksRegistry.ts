import type { DataContext, DataRecord } from './dataEngine.ts';
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
export type HookHandler = (event: any, prepared?: any) => unknown;

/** What a handler's `prepare` is given: the values the caller sent, coerced, before the write's transaction opens. */
export interface PrepareEvent {
  object: string;
  /** A create's coerced values, or an update's coerced patch (before any before-hook). */
  record: DataRecord;
  ctx: DataContext;
}

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
  /** See HookOptions.appliesTo. */
  appliesTo?: (object: string, environmentId: string) => boolean;
  /** See HookOptions.prepare. */
  prepare?: (event: PrepareEvent) => unknown;
  handler: HookHandler;
}

/** What a plugin may say of a handler it registers (`ctx.hook(name, handler, options)`). */
export interface HookOptions {
  object?: string;
  priority?: number;
  batched?: boolean;
  /**
   * Data write hooks: answers false when the handler would do nothing for a write of `object` in
   * `environmentId` as things stand now (no flow on the object, no search index of it). A write
   * none of whose handlers applies may run as one statement of its own, without a transaction
   * around it (docs/data-api.md, single-statement writes), and a handler that does not apply may
   * not be called. Synchronous and cheap: it is asked
   * on every write. When unsure, answer true. Without it, the handler always applies.
   */
  appliesTo?: (object: string, environmentId: string) => boolean;
  /**
   * data.afterInsert / data.afterUpdate only: the part of the handler's work that depends on
   * nothing but the values the caller sent (text to index, say), done before the write's
   * transaction opens, so the transaction (on SQLite, the one writer) is not held for it. Its
   * answer reaches the handler as its second argument; the handler must check that it still holds
   * for the record as stored (a before-hook may have changed a value) and do the work itself where
   * it does not. Synchronous, reads no database, writes nothing. Not every write prepares (a write
   * inside a transaction already, an upsert): the second argument is then undefined.
   */
  prepare?: (event: PrepareEvent) => unknown;
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
