import { HOOK_NAMES, type HookHandler, type HookName, type HookRegistration, type HooksRegistry } from '../capabilities/hooksRegistry.ts';
import { codedError } from './errors.ts';

/** Collects hook handlers during register; read through the `hooks.registry` capability. */
export class HookStore implements HooksRegistry {
  private entries: HookRegistration[] = [];
  private sealed = false;

  add(plugin: string, hook: string, handler: HookHandler, options: { object?: string; priority?: number } = {}): void {
    if (!(HOOK_NAMES as readonly string[]).includes(hook)) {
      throw codedError('KERNEL_UNKNOWN_HOOK', { plugin, hook, fix: `use one of: ${HOOK_NAMES.join(', ')}` });
    }
    if (typeof handler !== 'function') {
      throw codedError('KERNEL_UNKNOWN_HOOK', { plugin, hook, fix: 'pass a function as the handler' });
    }
    const entry: HookRegistration = { hook: hook as HookName, plugin, handler, priority: options.priority ?? 100 };
    if (options.object !== undefined) entry.object = options.object;
    this.entries.push(entry);
  }

  /** Drop every handler of a plugin that was left out of the boot. */
  removePlugin(plugin: string): void {
    this.entries = this.entries.filter((e) => e.plugin !== plugin);
  }

  seal(): void {
    this.sealed = true;
    this.entries = Object.freeze([...this.entries]) as HookRegistration[];
  }

  get isSealed(): boolean {
    return this.sealed;
  }

  handlers(hook: HookName, object?: string): HookRegistration[] {
    return this.entries
      .filter((e) => e.hook === hook && (e.object === undefined || e.object === object))
      .map((e, index) => ({ e, index }))
      .sort((a, b) => a.e.priority - b.e.priority || a.index - b.index)
      .map(({ e }) => e);
  }

  all(): readonly HookRegistration[] {
    return this.entries;
  }
}
