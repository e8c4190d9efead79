import type { RetentionEntry } from '../../capabilities/retentionRegister.ts';
import { codedError, type CodedError } from '../../kernel/errors.ts';

/** A contract with the window that applies to it. */
export interface RetentionWindow extends RetentionEntry {
  overridden: boolean;
}

/**
 * The windows of the declared contracts with `lifecycle.retention_overrides` applied. An override
 * naming no declared contract is refused (a typo would otherwise keep data longer than meant).
 */
export function retentionWindows(contracts: readonly RetentionEntry[], overrides: Readonly<Record<string, number>>): RetentionWindow[] {
  const names = new Set(contracts.map((c) => c.name));
  const unknown = Object.keys(overrides).filter((name) => !names.has(name));
  if (unknown.length > 0) throw unknownOverride(unknown[0]!, [...names]);
  return contracts.map((c) => (Object.hasOwn(overrides, c.name) ? { ...c, keepDays: overrides[c.name]!, overridden: true } : { ...c, overridden: false }));
}

function unknownOverride(name: string, known: string[]): CodedError {
  return codedError('CONFIG_INVALID', {
    path: `lifecycle.retention_overrides.${name.slice(0, 200)}`,
    reason: `no retention contract is named '${name.slice(0, 200)}'; declared contracts: ${known.length > 0 ? known.sort().join(', ') : 'none'}. Fix the name or remove the override`,
  });
}

/** The instant before which rows are past the window; null for keepDays 0 (kept forever). */
export function cutoffOf(keepDays: number, now: Date): Date | null {
  return keepDays === 0 ? null : new Date(now.getTime() - keepDays * 86_400_000);
}
