import semver from 'semver';
import { z } from 'zod';
import { codedError, type CodedError } from './errors.ts';
import type { PluginEntry } from './pluginEntry.ts';
import { PARSE_ONCE } from './parseOnce.ts';

const fn = z.custom<(...args: unknown[]) => unknown>((v) => typeof v === 'function', 'must be a function');

const manifestSchema = z.object({
  name: z.string().regex(/^(@[a-z0-9-]+\/)?[a-z][a-z0-9-]*$/, 'must be kebab-case, optionally @scope/name'),
  version: z.string().refine((v) => semver.valid(v) !== null, 'must be a semver version such as 1.0.0'),
  kernel: z.string().min(1, 'must be a protocol range such as ^16.0.0'),
  requires: z.array(z.string()).optional(),
  optional: z.array(z.string()).optional(),
  provides: z.array(z.string()).optional(),
  onBootFailure: z.enum(['abort', 'continue']).optional(),
  timeoutMs: z.number().int().positive().optional(),
  options: z.custom((v) => v === undefined || (typeof v === 'object' && v !== null && 'safeParse' in v), 'must be a zod schema').optional(),
  register: fn,
  start: fn.optional(),
  ready: fn.optional(),
  drain: fn.optional(),
  stop: fn.optional(),
});

/** Shape errors of one manifest, one coded error each. */
export function validateManifest(entry: PluginEntry): CodedError[] {
  const manifest = entry.manifest as unknown;
  const name = typeof (manifest as { name?: unknown })?.name === 'string' ? (manifest as { name: string }).name : `(from ${entry.source})`;
  const parsed = manifestSchema.safeParse(manifest, PARSE_ONCE);
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) =>
    codedError('KERNEL_INVALID_MANIFEST', {
      plugin: name,
      path: issue.path.length > 0 ? issue.path.join('.') : '(root)',
      reason: issue.message,
      fix: 'export definePlugin({ name, version, kernel, requires, provides, register }) with the fields documented in docs/plugins.md',
    }),
  );
}
