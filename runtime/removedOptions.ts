import { codedError, type CodedError } from '../kernel/errors.ts';

/** Options a release removed, with the key that replaces each: a config that still sets one fails the load naming it. */
export const REMOVED_OPTIONS = [
  { path: ['plugins', 'notifications', 'retentionDays'], contract: 'notifications.history', release: '14.5' },
  { path: ['plugins', 'flows', 'retentionDays'], contract: 'flows.runs', release: '14.5' },
  { path: ['plugins', 'email', 'logRetentionDays'], contract: 'email.log', release: '14.5' },
] as const;

/** CONFIG_INVALID for each removed option the raw config sets, naming the `lifecycle.retention_overrides` key to use. */
export function removedOptionFailures(raw: Record<string, unknown>, file: string): CodedError[] {
  const failures: CodedError[] = [];
  for (const removed of REMOVED_OPTIONS) {
    let at: unknown = raw;
    for (const key of removed.path.slice(0, -1)) at = typeof at === 'object' && at !== null ? (at as Record<string, unknown>)[key] : undefined;
    const key = removed.path[removed.path.length - 1]!;
    if (typeof at !== 'object' || at === null || !Object.hasOwn(at, key)) continue;
    const value = (at as Record<string, unknown>)[key];
    const days = typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : 90;
    failures.push(codedError('CONFIG_INVALID', {
      path: removed.path.join('.'),
      reason: `was removed in ${removed.release}; set lifecycle.retention_overrides["${removed.contract}"] instead, e.g. { "lifecycle": { "retention_overrides": { "${removed.contract}": ${days} } } } (days to keep; 0 keeps forever)`,
      file,
      replacement: `lifecycle.retention_overrides.${removed.contract}`,
    }));
  }
  return failures;
}
