/** Builders shared by the kernel tests: manifests with defaults and boot-failure assertions. */
import type { Test } from 'tap';
import {
  createKernel, KernelBootError,
  type AnyPlugin, type CodedError, type ErrorCode, type Kernel, type KernelOptions, type PluginEntry,
} from '../../kernel/index.ts';

type Fields = Partial<AnyPlugin> & { name: string };

/** A manifest for protocol 16 whose default register provides every token it declares. */
export function plugin(fields: Fields): AnyPlugin {
  return {
    version: '1.0.0',
    kernel: '^16.0.0',
    register(ctx) {
      for (const token of fields.provides ?? []) ctx.provide(token, { from: fields.name } as never);
    },
    ...fields,
  };
}

/** An enabled, fully granted built-in entry unless `extra` says otherwise. */
export function entry(fields: Fields, extra: Partial<PluginEntry> = {}): PluginEntry {
  return { manifest: plugin(fields), enabled: true, grants: 'all', source: 'builtin', ...extra };
}

/** An entry whose manifest is taken as given, for manifests that must fail validation. */
export function rawEntry(manifest: unknown, source: string): PluginEntry {
  return { manifest: manifest as AnyPlugin, enabled: true, grants: 'all', source };
}

export function kernelOf(plugins: PluginEntry[], options: Partial<KernelOptions> = {}): Kernel {
  return createKernel({ plugins, ...options });
}

/** The KernelBootError a boot must reject with; any other outcome fails the test. */
export async function bootError(kernel: Kernel): Promise<KernelBootError> {
  try {
    await kernel.boot();
  } catch (error) {
    if (error instanceof KernelBootError) return error;
    throw error;
  }
  throw new Error('boot succeeded, but a KernelBootError was expected');
}

export interface ExpectedFailure {
  code: ErrorCode;
  /** The whole sentence. */
  message?: string;
  /** Or the parts that must appear in it (plugin, token, provider, fix). */
  includes?: string[];
}

/** Every failure line in order: its code and its message, nothing more, nothing less. */
export function assertFailures(t: Test, error: KernelBootError, expected: ExpectedFailure[]): void {
  t.equal(error.code, 'KERNEL_BOOT_FAILED', 'one boot error');
  t.same(error.failures.map((f: CodedError) => f.code), expected.map((e) => e.code), 'failure codes');
  expected.forEach((want, i) => {
    const got = error.failures[i]?.message ?? '';
    if (want.message !== undefined) t.equal(got, want.message, `message of failure ${i + 1}`);
    for (const part of want.includes ?? []) t.match(got, part, `failure ${i + 1} names ${part}`);
    if (want.code === 'KERNEL_DEPENDENCY_FAILED') {
      // Dependents are folded into one line per root cause, after the causes.
      const plugin = String(error.failures[i]?.details.plugin);
      t.match(error.message, new RegExp(`\\n  - \\[KERNEL_DEPENDENCY_FAILED\\] not started because '[^']+' failed: [^\\n]*\\b${plugin}\\b`), `the boot error names dependent ${plugin}`);
    } else t.match(error.message, `  - [${want.code}] ${got}`, `the boot error lists failure ${i + 1}`);
  });
  const causes = expected.filter((e) => e.code !== 'KERNEL_DEPENDENCY_FAILED').length;
  t.match(error.message, `(${causes} problem(s))`, 'the boot error counts the causes');
}
