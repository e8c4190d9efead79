import { HOOK_NAMES, type HookHandler, type HookName, type HookOptions, type HookRegistration, type HooksRegistry } from '../capabilities/hooksRegistry.ts';
import { codedError } from './errors.ts';

const WRITE_HOOKS: ReadonlySet<string> = new Set(HOOK_NAMES.filter((h) => /^data\.(before|after)(Insert|Update|Delete)$/.test(h)));

interface Stored {
  registration: HookRegistration;
  /** Boot position of the plugin: ties on priority follow it even when a hook is added in start. */
  rank: number;
  seq: number;
}

/** Collects hook handlers during register; read through the `hooks.registry` capability. */
export class HookStore {
  private entries: Stored[] = [];
  private seq = 0;
  /** handlers() answers by hook, then object ('' for none), computed once until the next add or removal. */
  private lists = new Map<string, Map<string, readonly HookRegistration[]>>();

  add(plugin: string, hook: string, handler: HookHandler, options: HookOptions = {}, rank = 0): void {
    if (!(HOOK_NAMES as readonly string[]).includes(hook)) {
      throw codedError('KERNEL_UNKNOWN_HOOK', { plugin, hook, fix: `use one of: ${HOOK_NAMES.join(', ')}` });
    }
    if (typeof handler !== 'function') {
      throw codedError('KERNEL_UNKNOWN_HOOK', { plugin, hook, fix: 'pass a function as the handler' });
    }
    const priority = options.priority ?? 100;
    if (typeof priority !== 'number' || !Number.isFinite(priority)) {
      throw codedError('KERNEL_UNKNOWN_HOOK', { plugin, hook, fix: 'pass a finite number as the priority (lower runs first)' });
    }
    if (options.batched !== undefined && (options.batched !== true || (hook !== 'data.beforeInsert' && hook !== 'data.afterInsert'))) {
      throw codedError('KERNEL_UNKNOWN_HOOK', { plugin, hook, fix: 'batched takes true, on data.beforeInsert and data.afterInsert handlers only' });
    }
    if (options.appliesTo !== undefined && (typeof options.appliesTo !== 'function' || !WRITE_HOOKS.has(hook))) {
      throw codedError('KERNEL_UNKNOWN_HOOK', { plugin, hook, fix: 'appliesTo takes a function, on the data write hooks only (data.before/after Insert, Update, Delete)' });
    }
    if (options.prepare !== undefined && (typeof options.prepare !== 'function' || (hook !== 'data.afterInsert' && hook !== 'data.afterUpdate'))) {
      throw codedError('KERNEL_UNKNOWN_HOOK', { plugin, hook, fix: 'prepare takes a function, on data.afterInsert and data.afterUpdate handlers only' });
    }
    const registration: HookRegistration = { hook: hook as HookName, plugin, handler, priority };
    if (options.object !== undefined) registration.object = options.object;
    if (options.batched === true) registration.batched = true;
    if (options.appliesTo) registration.appliesTo = options.appliesTo;
    if (options.prepare) registration.prepare = options.prepare;
    // Frozen so that a reader of the registry cannot reorder or retarget another plugin's handler.
    this.entries.push({ registration: Object.freeze(registration), rank, seq: this.seq++ });
    this.lists.clear();
  }

  /** Drop every handler of a plugin that was left out of the boot. */
  removePlugin(plugin: string): void {
    this.entries = this.entries.filter((e) => e.registration.plugin !== plugin);
    this.lists.clear();
  }

  handlers(hook: HookName, object?: string): readonly HookRegistration[] {
    let byObject = this.lists.get(hook);
    if (!byObject) this.lists.set(hook, (byObject = new Map()));
    let list = byObject.get(object ?? '');
    if (!list) {
      list = Object.freeze(this.entries
        .filter(({ registration: r }) => r.hook === hook && (r.object === undefined || r.object === object))
        .sort((a, b) => a.registration.priority - b.registration.priority || a.rank - b.rank || a.seq - b.seq)
        .map((e) => e.registration));
      byObject.set(object ?? '', list);
    }
    return list;
  }

  all(): readonly HookRegistration[] {
    return Object.freeze(this.entries.map((e) => e.registration));
  }

  /** What plugins get for `hooks.registry`: reading only, never add or remove. */
  view(): HooksRegistry {
    return Object.freeze({ handlers: this.handlers.bind(this), all: this.all.bind(this) });
  }
}
