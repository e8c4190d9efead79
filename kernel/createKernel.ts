import type { RuntimeInfo } from '../capabilities/runtimeInfo.ts';
import type { SecretsKeys } from '../capabilities/secretsKeys.ts';
import type { HookOptions } from '../capabilities/hooksRegistry.ts';
import { checkGraph, type GraphCheck } from './checkGraph.ts';
import { createPluginScope, isPerConsumer, type ProvidedService } from './createPluginScope.ts';
import type { AnyPlugin, PluginContext } from './definePlugin.ts';
import { codedError, isCodedError, KernelBootError, type CodedError } from './errors.ts';
import { HookStore } from './hookStore.ts';
import { silentLogger, type Logger } from './logger.ts';
import { KERNEL_PROVIDER, type PluginEntry } from './pluginEntry.ts';
import { RetentionStore } from './retentionStore.ts';
import { withTimeout } from './withTimeout.ts';

export type Phase = 'register' | 'start' | 'ready' | 'drain' | 'stop';
export type PluginStatus = 'disabled' | 'pending' | 'registered' | 'started' | 'ready' | 'failed' | 'skipped' | 'stopped';

export interface PluginState {
  name: string;
  version: string;
  source: string;
  status: PluginStatus;
  requires: string[];
  optional: string[];
  provides: string[];
  error?: { code: string; message: string };
}

export interface KernelOptions {
  plugins: PluginEntry[];
  logger?: Logger;
  runtimeInfo?: RuntimeInfo;
  /** Key derivation for plugins that require `secrets.keys`. */
  secrets?: SecretsKeys;
  /** Default per-phase timeout in ms (10 000). */
  timeoutMs?: number;
}

export interface Kernel {
  /** Pure pre-flight: manifests, tokens, providers, grants, options and order. */
  check(): GraphCheck;
  /** Check, register, start, freeze, ready. Throws one KernelBootError with every failure. */
  boot(): Promise<void>;
  /** Drain then stop, in reverse order. Safe to call twice. */
  stop(): Promise<void>;
  states(): PluginState[];
  /** `plugin:phase` in the order phases ran. */
  readonly timeline: readonly string[];
  readonly frozen: boolean;
  /** Host access to a provided service (the host is trusted; plugins use their scope). */
  service<T = unknown>(token: string): T | undefined;
  installSignalHandlers(exit?: (code: number) => void): void;
}

interface Slot {
  entry: PluginEntry;
  manifest: AnyPlugin;
  status: PluginStatus;
  ctx?: PluginContext<never, never, never, unknown>;
  error?: CodedError;
  /** Start completed: such a plugin is drained and stopped, even if a later phase failed. */
  started: boolean;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const BOOT_PHASES = new Set<Phase>(['register', 'start', 'ready']);

export function createKernel(options: KernelOptions): Kernel {
  const log = options.logger ?? silentLogger();
  const hooks = new HookStore();
  const retention = new RetentionStore();
  const provided = new Map<string, ProvidedService[]>();
  const timeline: string[] = [];
  const slots = new Map<string, Slot>();
  let frozen = false;
  let order: string[] = [];
  let stopping: Promise<void> | null = null;
  let booted = false;
  let ready = false;
  /** A plugin said the process answers requests: a boot phase's timeout no longer ends the process. */
  let serving = false;

  // Plugins get read-only views: the stores' add/remove stay with the kernel.
  provided.set('hooks.registry', [{ provider: KERNEL_PROVIDER, service: hooks.view() }]);
  provided.set('retention.register', [{ provider: KERNEL_PROVIDER, service: retention.view() }]);
  // Read through a function: the states are the kernel's own, as they are when asked.
  provided.set('kernel.plugins', [{ provider: KERNEL_PROVIDER, service: Object.freeze({ states: () => kernel.states() }) }]);
  if (options.secrets) provided.set('secrets.keys', [{ provider: KERNEL_PROVIDER, service: options.secrets }]);
  if (options.runtimeInfo) provided.set('runtime.info', [{ provider: KERNEL_PROVIDER, service: Object.freeze({ ...options.runtimeInfo }) }]);
  const kernelProvided = [...provided.keys()];

  const lookup = (token: string) => provided.get(token) ?? [];

  const frozenError = (plugin: string, action: string) =>
    codedError('KERNEL_FROZEN', { plugin, action, fix: `do this in the register phase of '${plugin}'` });

  function makeContext(slot: Slot, parsedOptions: unknown): PluginContext<never, never, never, unknown> {
    const m = slot.manifest;
    const scope = createPluginScope(m, slot.entry.grants, lookup);
    const ctx = {
      plugin: Object.freeze({ name: m.name, version: m.version }),
      options: parsedOptions,
      log: log.child({ plugin: m.name }),
      resolve: (token: string) => scope.resolve(token),
      has: (token: string) => scope.has(token),
      provide: (token: string, service: unknown) => {
        if (frozen) throw frozenError(m.name, `provide '${token}'`);
        if (!(m.provides ?? []).includes(token)) {
          throw codedError('KERNEL_NOT_PROVIDED_BY', { plugin: m.name, token, fix: `add '${token}' to the provides of '${m.name}'` });
        }
        provided.set(token, [...lookup(token).filter((p) => p.provider !== m.name), { provider: m.name, service }]);
      },
      hook: (name: string, handler: (event: unknown) => unknown, opts?: HookOptions) => {
        if (frozen) throw frozenError(m.name, `register a '${name}' hook`);
        hooks.add(m.name, name, handler, opts, order.indexOf(m.name));
      },
      retention: (contract: Parameters<RetentionStore['add']>[1]) => {
        if (frozen) throw frozenError(m.name, `declare retention contract '${contract?.name}'`);
        retention.add(m.name, contract);
      },
      serving: () => {
        serving = true;
      },
    };
    return ctx as unknown as PluginContext<never, never, never, unknown>;
  }

  // A plugin may report several problems at once (every metadata error, say) as a KernelBootError;
  // their lines join the boot report instead of nesting in it.
  const toCoded = (slot: Slot, phase: Phase, error: unknown): CodedError => {
    if (isCodedError(error) && (error.code.startsWith('KERNEL_') || error.code.startsWith('CONFIG_') || error.code === 'METADATA_INVALID' || error.code === 'SCHEMA_CHANGE_REFUSED')) return error;
    const reason = isCodedError(error) ? `[${error.code}] ${error.message}` : error instanceof Error ? error.message : String(error);
    return codedError('KERNEL_PHASE_FAILED', {
      plugin: slot.manifest.name, phase, reason,
      fix: `see the log of '${slot.manifest.name}'; correct its configuration or disable it (plugins.${slot.manifest.name}.enabled: false)`,
    });
  };

  async function runPhase(slot: Slot, phase: Phase): Promise<CodedError | null> {
    const fn = slot.manifest[phase];
    if (typeof fn !== 'function') return null;
    const timeoutMs = slot.entry.timeoutMs ?? slot.manifest.timeoutMs ?? options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    timeline.push(`${slot.manifest.name}:${phase}`);
    const running = Promise.resolve().then(() => fn.call(slot.manifest, slot.ctx!));
    let timedOut: CodedError | null = null;
    try {
      await withTimeout(() => running, timeoutMs, () => (timedOut = codedError('KERNEL_PHASE_TIMEOUT', {
        plugin: slot.manifest.name, phase, timeoutMs,
        fix: `make ${phase} of '${slot.manifest.name}' finish sooner, or raise plugins.${slot.manifest.name}.timeoutMs`,
      })));
      return null;
    } catch (error) {
      // Once the process answers requests, a slow boot phase is waited for: exiting would drop
      // what it serves. Readiness (the http plugin's /health) stays 503 until the boot is done.
      if (error !== timedOut || !serving || !BOOT_PHASES.has(phase)) return toCoded(slot, phase, error);
      log.warn({ plugin: slot.manifest.name, phase, timeoutMs, code: timedOut!.code }, `${timedOut!.message}; this process already serves requests, so the boot waits for it`);
      try {
        await running;
        log.info({ plugin: slot.manifest.name, phase }, `plugin '${slot.manifest.name}' finished ${phase} late`);
        return null;
      } catch (late) {
        return toCoded(slot, phase, late);
      }
    }
  }

  /** A plugin depending on a failed one is skipped; its failure names the provider. */
  function failedDependency(slot: Slot): CodedError | null {
    for (const token of (slot.manifest.requires ?? []) as string[]) {
      for (const other of order) {
        const o = slots.get(other)!;
        if ((o.status === 'failed' || o.status === 'skipped') && (o.manifest.provides ?? []).includes(token)) {
          return codedError('KERNEL_DEPENDENCY_FAILED', {
            plugin: slot.manifest.name, provider: o.manifest.name, token, fix: `resolve the failure of '${o.manifest.name}' first`,
          });
        }
      }
    }
    return null;
  }

  /** Leave a plugin out: its hooks, contracts and services go, providers forget it as a consumer. */
  function drop(slot: Slot): void {
    const name = slot.manifest.name;
    hooks.removePlugin(name);
    retention.removePlugin(name);
    const declared = new Set([...(slot.manifest.requires ?? []), ...(slot.manifest.optional ?? [])] as string[]);
    for (const [token, list] of provided) {
      const kept = list.filter((p) => p.provider !== name);
      provided.set(token, kept);
      if (!declared.has(token)) continue;
      for (const p of kept) {
        if (!isPerConsumer(p.service) || typeof p.service.discard !== 'function') continue;
        try {
          p.service.discard({ name });
        } catch (error) {
          log.error({ plugin: p.provider, consumer: name, err: error }, 'discard failed');
        }
      }
    }
  }

  /** Runs a phase over every live plugin in order; returns the failures that abort the boot. */
  async function phaseAll(phase: 'register' | 'start' | 'ready', next: PluginStatus): Promise<CodedError[]> {
    const fatal: CodedError[] = [];
    for (const name of order) {
      const slot = slots.get(name)!;
      if (slot.status === 'failed' || slot.status === 'skipped') continue;
      const blocked = failedDependency(slot);
      let error = blocked ?? (await runPhase(slot, phase));
      if (!error && phase === 'register') {
        const missing = ((slot.manifest.provides ?? []) as string[]).find((t) => !lookup(t).some((p) => p.provider === name));
        if (missing) {
          error = codedError('KERNEL_PROVIDE_MISSING', { plugin: name, token: missing, fix: `call ctx.provide('${missing}', service) in register` });
        }
      }
      if (!error) {
        slot.status = next;
        if (phase === 'start') slot.started = true;
        continue;
      }
      slot.status = blocked ? 'skipped' : 'failed';
      slot.error = error;
      if (slot.manifest.onBootFailure === 'continue') {
        log.warn({ plugin: name, code: error.code }, `plugin left out: ${error.message}`);
        drop(slot);
      } else if (error instanceof KernelBootError) fatal.push(...error.failures);
      else fatal.push(error);
    }
    return fatal;
  }

  /**
   * Drain then stop, in reverse order, every plugin whose start completed (one that failed later,
   * in ready, holds what its start opened). A plugin that only registered has nothing to release.
   */
  async function stopSlots(names: string[]): Promise<void> {
    const all = names.map((n) => slots.get(n)!);
    const live = all.filter((s) => s.started).reverse();
    for (const slot of live) slot.started = false;
    for (const phase of ['drain', 'stop'] as const) {
      for (const slot of live) {
        const error = await runPhase(slot, phase);
        if (error) log.error({ plugin: slot.manifest.name, code: error.code }, error.message);
      }
    }
    for (const slot of all) if (slot.status === 'registered' || slot.status === 'started' || slot.status === 'ready') slot.status = 'stopped';
  }

  async function runRuntimeHook(name: 'runtime.ready' | 'runtime.stopping'): Promise<void> {
    for (const h of hooks.handlers(name)) {
      try {
        await h.handler({});
      } catch (error) {
        log.error({ plugin: h.plugin, hook: name, err: error }, 'runtime hook failed');
      }
    }
  }

  const kernel: Kernel = {
    get timeline() {
      return timeline;
    },
    get frozen() {
      return frozen;
    },
    check: () => checkGraph(options.plugins, kernelProvided),
    async boot() {
      if (booted) throw codedError('KERNEL_FROZEN', { plugin: KERNEL_PROVIDER, action: 'boot twice', fix: 'create a new kernel' });
      booted = true;
      const graph = checkGraph(options.plugins, kernelProvided);
      if (graph.failures.length > 0) throw new KernelBootError(graph.failures);
      order = graph.order;
      for (const entry of options.plugins) {
        const slot: Slot = { entry, manifest: entry.manifest, status: entry.enabled ? 'pending' : 'disabled', started: false };
        slots.set(entry.manifest.name, slot);
        if (entry.enabled) slot.ctx = makeContext(slot, graph.options.get(entry.manifest.name));
      }
      for (const phase of ['register', 'start'] as const) {
        const fatal = await phaseAll(phase, phase === 'register' ? 'registered' : 'started');
        if (fatal.length > 0) {
          await stopSlots(order);
          throw new KernelBootError(fatal);
        }
      }
      frozen = true;
      const fatal = await phaseAll('ready', 'ready');
      if (fatal.length > 0) {
        await stopSlots(order);
        throw new KernelBootError(fatal);
      }
      ready = true;
      await runRuntimeHook('runtime.ready');
    },
    stop() {
      stopping ??= (async () => {
        if (ready) await runRuntimeHook('runtime.stopping');
        await stopSlots(order);
      })();
      return stopping;
    },
    states() {
      return options.plugins.map((entry) => {
        // A module that exported no manifest still gets a line, named by its source.
        const m: Partial<AnyPlugin> = entry.manifest ?? {};
        const name = typeof m.name === 'string' ? m.name : `(from ${entry.source})`;
        const slot = slots.get(name);
        const state: PluginState = {
          name, version: String(m.version ?? ''), source: entry.source,
          status: slot?.status ?? (entry.enabled ? 'pending' : 'disabled'),
          requires: [...((m.requires ?? []) as string[])], optional: [...((m.optional ?? []) as string[])], provides: [...((m.provides ?? []) as string[])],
        };
        if (slot?.error) state.error = { code: slot.error.code, message: slot.error.message };
        return state;
      });
    },
    service<T>(token: string): T | undefined {
      const first = lookup(token)[0];
      if (!first) return undefined;
      return (isPerConsumer(first.service) ? first.service.perConsumer({ name: 'host' }) : first.service) as T;
    },
    installSignalHandlers(exit = (code) => process.exit(code)) {
      const onSignal = (signal: NodeJS.Signals) => {
        // One shutdown per process: the other signal is released too, so a second one kills at once.
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        log.info({ signal }, 'shutting down');
        kernel.stop().then(() => exit(0), (error: unknown) => {
          log.error({ err: error }, 'shutdown failed');
          exit(1);
        });
      };
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
    },
  };
  return kernel;
}
