import type { ZodType } from 'zod';
import type { CapabilityToken, ResolvedService, ServiceOf } from '../capabilities/registry.ts';
import type { HookHandler, HookName, HookOptions } from '../capabilities/hooksRegistry.ts';
import type { RetentionContract } from '../capabilities/retentionRegister.ts';
import type { Logger } from './logger.ts';

export type Tokens = readonly CapabilityToken[];

/** A service a plugin provides: one value for all, or one value built per consuming plugin. */
export interface PerConsumer<S> {
  readonly perConsumer: (consumer: { name: string }) => S;
  /** Called when a consumer is left out of the boot (onBootFailure 'continue'): forget what it declared. */
  readonly discard?: (consumer: { name: string }) => void;
}

export function perConsumer<S>(build: (consumer: { name: string }) => S, discard?: (consumer: { name: string }) => void): PerConsumer<S> {
  return discard ? { perConsumer: build, discard } : { perConsumer: build };
}

export interface PluginContext<R extends Tokens, O extends Tokens, P extends Tokens, Opt> {
  readonly plugin: { readonly name: string; readonly version: string };
  /** This plugin's options from config, validated against the manifest's `options` schema. */
  readonly options: Opt;
  readonly log: Logger;
  /** A service the plugin declared in requires (or optional: then possibly undefined). */
  resolve<T extends R[number]>(token: T): ResolvedService<T>;
  resolve<T extends O[number]>(token: T): ResolvedService<T> | undefined;
  /** Whether an optional capability is present. */
  has(token: O[number] | R[number]): boolean;
  /** Provide a declared capability (register phase only). */
  provide<T extends P[number]>(token: T, service: ServiceOf<T> | PerConsumer<ServiceOf<T>>): void;
  /** Register a handler for a hook of the closed list (register phase only). */
  hook(name: HookName, handler: HookHandler, options?: HookOptions): void;
  /** Declare a retention contract (register phase only). */
  retention(contract: RetentionContract): void;
  /**
   * This process answers requests from now on (the http plugin calls it once it listens): a boot
   * phase that then outlasts its timeout is logged and waited for instead of ending the boot.
   */
  serving(): void;
}

export interface PluginManifest<R extends Tokens = Tokens, O extends Tokens = Tokens, P extends Tokens = Tokens, Opt = unknown> {
  name: string;
  version: string;
  /** Protocol range the plugin was built for, for example '^16.0.0'. */
  kernel: string;
  requires?: R;
  /** Capabilities used when present; ordering applies, absence is not an error. */
  optional?: O;
  provides?: P;
  /** `abort` (default) fails boot; `continue` logs, leaves the plugin out and boots the rest. Only for plugins nothing depends on. */
  onBootFailure?: 'abort' | 'continue';
  /** Milliseconds allowed for each of register, start and ready; default 10 000. */
  timeoutMs?: number;
  /** Schema of `plugins.<name>` options in config (without `enabled`, `grants`, `path`). */
  options?: ZodType<Opt>;
  /** Collect: provide services, declare routes, hooks and retention. No I/O that can wait for start. */
  register(ctx: PluginContext<R, O, P, Opt>): void | Promise<void>;
  /** Do the work: open connections, sync schemas. Runs in dependency order. */
  start?(ctx: PluginContext<R, O, P, Opt>): void | Promise<void>;
  /** After every plugin started and the kernel froze: listen, schedule. */
  ready?(ctx: PluginContext<R, O, P, Opt>): void | Promise<void>;
  /** First step of shutdown, in reverse order: stop taking work, finish what is in flight. */
  drain?(ctx: PluginContext<R, O, P, Opt>): void | Promise<void>;
  /** Release resources, in reverse order. */
  stop?(ctx: PluginContext<R, O, P, Opt>): void | Promise<void>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyPlugin = PluginManifest<any, any, any, any>;

/** Declare a plugin. Pure: importing a manifest has no side effects. */
export function definePlugin<const R extends Tokens = [], const O extends Tokens = [], const P extends Tokens = [], Opt = Record<string, never>>(
  manifest: PluginManifest<R, O, P, Opt>,
): PluginManifest<R, O, P, Opt> {
  return Object.freeze({ ...manifest });
}
